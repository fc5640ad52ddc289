// note_context.cpp -- post-execute: accept the result and queue a context
// note for the model.  The host releases the notes first-in first-out, after
// every result of the batch.
#include <toolgate/plugin.hpp>

namespace sdk = toolgate::sdk;

class NoteContext {
 public:
  explicit NoteContext(sdk::Init& init) {
    init.post_execute("note", [](const sdk::Call& call) {
      auto name = call.arg_string("/name");
      std::string note = "note: " + std::string(call.tool()) + " was called for " +
                         std::string(name ? *name : "nobody");
      return sdk::PostVerdict::accept().add_context(std::move(note));
    });
  }
};

TOOLGATE_PLUGIN(NoteContext, "sample.note", "1.0.0", TG_CAP_POST_EXECUTE, 0)

// message_storage.cpp -- one parsed message's values in one block
// (toolgate/json.hpp: make_message_storage).
//
// A parsed message is some fifty small allocations (every object, array,
// key and long string); with the default heap each is a malloc and,
// later, a free -- often on another thread than the one that allocated it,
// which is glibc's slow path.  Here they are cut from one block sized from
// the text, and the block goes when the last value using it does.
//
// Why it is safe to hand such values anywhere:
// - lifetime: the storage is reference-counted (Boost.JSON's shared
//   storage_ptr): a value copied out of the message keeps the block alive;
// - threads: a copy of a value (an id kept for the answer) allocates from
//   its source's storage on whichever thread copies it, so the bump is one
//   atomic compare-and-swap, and anything beyond the block comes from the
//   heap, which is thread-safe itself;
// - memory: the block is never grown.  A value kept and changed for a long
//   time (each change a new allocation) spills to the heap, where a free
//   frees, instead of growing a block that frees nothing.
#include <toolgate/json.hpp>

#include <boost/json/storage_ptr.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

namespace toolgate {

namespace {

// The bump over one block; what the block does not hold comes from, and
// goes back to, the heap.
class MessageArena : public boost::json::memory_resource {
 public:
  MessageArena(const MessageArena&) = delete;
  MessageArena& operator=(const MessageArena&) = delete;

 protected:
  MessageArena(unsigned char* block, std::size_t size) : block_(block), size_(size) {}
  unsigned char* block() const { return block_; }

 private:
  void* do_allocate(std::size_t n, std::size_t align) override {
    // Offsets are aligned, and the block starts at malloc's alignment:
    // anything asking for more comes from the heap (Boost.JSON asks for 8
    // at most).  A zero-byte request takes one byte, so that no pointer
    // handed out is the block's end.
    if (n == 0) n = 1;
    if (align <= alignof(std::max_align_t)) {
      std::size_t used = used_.load(std::memory_order_relaxed);
      for (;;) {
        const std::size_t start = (used + align - 1) & ~(align - 1);
        if (start > size_ || size_ - start < n) break;
        // Relaxed: the range is this caller's alone; whoever reads what it
        // writes there is handed the value through the usual
        // synchronisation.
        if (used_.compare_exchange_weak(used, start + n, std::memory_order_relaxed))
          return block_ + start;
      }
    }
    return align <= __STDCPP_DEFAULT_NEW_ALIGNMENT__ ? ::operator new(n)
                                                     : ::operator new(n, std::align_val_t(align));
  }

  void do_deallocate(void* p, std::size_t, std::size_t align) override {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const auto begin = reinterpret_cast<std::uintptr_t>(block_);
    if (at >= begin && at < begin + size_) return;  // the block goes as a whole
    if (align <= __STDCPP_DEFAULT_NEW_ALIGNMENT__)
      ::operator delete(p);
    else
      ::operator delete(p, std::align_val_t(align));
  }

  bool do_is_equal(const boost::json::memory_resource& other) const noexcept override {
    return this == &other;
  }

  unsigned char* const block_;
  const std::size_t size_;
  std::atomic<std::size_t> used_{0};
};

// A small message (most of them: a call, its answer, a notification): the
// block is inside the storage's own allocation -- one malloc per message.
class SmallMessageArena final : public MessageArena {
 public:
  static constexpr std::size_t capacity = 1536;
  SmallMessageArena() : MessageArena(inline_, capacity) {}

 private:
  alignas(std::max_align_t) unsigned char inline_[capacity];
};

class LargeMessageArena final : public MessageArena {
 public:
  explicit LargeMessageArena(std::size_t bytes)
      : MessageArena(static_cast<unsigned char*>(::operator new(bytes)), bytes) {}
  ~LargeMessageArena() override { ::operator delete(block()); }
};

}  // namespace

boost::json::storage_ptr make_message_storage(std::size_t text_bytes) {
  // A small message's values take up to about 3.5 times its text (16-byte
  // values, 32-byte object members, an object's index), and the gateway
  // copies about as much again into the same storage (a call's arguments,
  // an answer's content: kept to tell whether a hook changed them).  A
  // large message's values take about its text (long strings are kept
  // whole).  Capped: a huge message spills to the heap rather than
  // reserving several times its size up front.
  const std::size_t bytes = text_bytes <= 4096 ? 6 * text_bytes + 512 : 2 * text_bytes + 16384;
  if (bytes <= SmallMessageArena::capacity)
    return boost::json::make_shared_resource<SmallMessageArena>();
  constexpr std::size_t cap = std::size_t(4) << 20;
  return boost::json::make_shared_resource<LargeMessageArena>(std::min(bytes, cap));
}

}  // namespace toolgate

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

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

namespace toolgate {

namespace {

class MessageArena final : public boost::json::memory_resource {
 public:
  explicit MessageArena(std::size_t bytes)
      : block_(static_cast<char*>(::operator new(bytes))), size_(bytes) {}
  ~MessageArena() override { ::operator delete(block_); }
  MessageArena(const MessageArena&) = delete;
  MessageArena& operator=(const MessageArena&) = delete;

 private:
  void* do_allocate(std::size_t n, std::size_t align) override {
    std::size_t used = used_.load(std::memory_order_relaxed);
    for (;;) {
      const std::size_t start = (used + align - 1) & ~(align - 1);
      if (start < used || start > size_ || size_ - start < n) break;
      // Relaxed: the range is this caller's alone; whoever reads what it
      // writes there is handed the value through the usual synchronisation.
      if (used_.compare_exchange_weak(used, start + n, std::memory_order_relaxed))
        return block_ + start;
    }
    return ::operator new(n, std::align_val_t(align));
  }

  void do_deallocate(void* p, std::size_t n, std::size_t align) override {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const auto begin = reinterpret_cast<std::uintptr_t>(block_);
    if (at >= begin && at < begin + size_) return;  // the block goes as a whole
    ::operator delete(p, n, std::align_val_t(align));
  }

  bool do_is_equal(const boost::json::memory_resource& other) const noexcept override {
    return this == &other;
  }

  char* const block_;
  const std::size_t size_;
  std::atomic<std::size_t> used_{0};
};

}  // namespace

boost::json::storage_ptr make_message_storage(std::size_t text_bytes) {
  // A small message's values take about 3.5 times its text (16-byte
  // values, 32-byte object members, an object's index); a large one's
  // about its text (long strings are kept whole).  Sized so a typical
  // call's block stays in malloc's per-thread cache (up to 1 KiB), and
  // capped: a huge message spills to the heap rather than reserving
  // several times its size up front.
  constexpr std::size_t cap = std::size_t(4) << 20;
  const std::size_t bytes = text_bytes >= cap / 3 ? cap : 3 * text_bytes + 384;
  return boost::json::make_shared_resource<MessageArena>(bytes);
}

}  // namespace toolgate

// make_message_storage (host/src/message_storage.cpp): a parsed message's
// values cut from one block, kept alive by whatever still uses them, safe
// from any thread, spilling to the heap past the block.  The gateway parses
// every message of either peer into one (jsonrpc.cpp), and the engine takes
// a call's arguments and a result without copying them out of it.
#include "jsonrpc.hpp"

#include <toolgate/json.hpp>

#include <gtest/gtest.h>

#include <malloc.h>
#include <algorithm>
#include <latch>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace json = boost::json;
using toolgate::make_message_storage;
using toolgate::parse_untrusted;
using toolgate::replace_keeping_storage;

namespace {
json::value parsed(std::string_view text, json::storage_ptr sp) {
  std::string why;
  auto v = parse_untrusted(text, 64, &why, std::move(sp));
  EXPECT_TRUE(v) << why;
  return v ? std::move(*v) : json::value();
}
}  // namespace

TEST(MessageStorage, ParsesTheSameValueIntoTheMessagesStorage) {
  const std::string text =
      R"({"jsonrpc":"2.0","id":"a-request-id-longer-than-inline","method":"tools/call",)"
      R"("params":{"name":"read_text_file","arguments":{"path":"/tmp/x","n":[1,2.5,-3]}}})";
  auto sp = make_message_storage(text.size());
  const auto v = parsed(text, sp);
  EXPECT_EQ(v, *parse_untrusted(text, 64));
  EXPECT_EQ(v.storage().get(), sp.get());
  EXPECT_EQ(v.at("params").at("arguments").storage().get(), sp.get());
  // And the gateway's message keeps it: classify moves the parsed object
  // into the message by construction (an assignment would copy it out).
  const auto m = toolgate::mcp::parse_message(text);
  ASSERT_EQ(m.kind, toolgate::mcp::Message::Kind::request);
  EXPECT_NE(m.body.storage().get(), json::storage_ptr().get());
  EXPECT_EQ(m.body.at("params").storage().get(), m.body.storage().get());
}

TEST(MessageStorage, AValueCopiedOutOutlivesTheMessage) {
  json::value kept;
  {
    const std::string text = R"({"id":"an id well past the inline string size","x":[{"k":"v"}]})";
    auto v = parsed(text, make_message_storage(text.size()));
    // A copy allocates from its source's storage, and holds it.
    replace_keeping_storage(kept, json::value(v.at("id")));
    EXPECT_EQ(kept.storage().get(), v.storage().get());
  }  // the message and its storage_ptr are gone; the block is not
  EXPECT_EQ(kept, "an id well past the inline string size");
}

TEST(MessageStorage, WhatDoesNotFitTheBlockComesFromTheHeapAndIsFreed) {
  // Sized for 8 bytes of text; the string alone is 64 KiB.
  const std::string big(64 * 1024, 'x');
  auto v = parsed("[\"" + big + "\",\"" + big + "\"]", make_message_storage(8));
  EXPECT_EQ(v.at(0).get_string(), big);
  EXPECT_EQ(v.at(1).get_string(), big);
  // A value kept and changed many times: each change frees, on the heap,
  // what it replaced -- the heap in use stays flat (a block that kept
  // every replaced string would hold 64 KiB more per turn: 12 MiB here).
  // (Under a sanitizer mallinfo2 counts nothing; the leak check covers it.)
  auto turn = [&](int i) { v.as_array()[0] = json::string(big + std::to_string(i), v.storage()); };
  for (int i = 0; i < 10; ++i) turn(i);
  const auto before = mallinfo2().uordblks;
  for (int i = 10; i < 200; ++i) turn(i);
  const auto after = mallinfo2().uordblks;
  EXPECT_LT(after, before + 1024 * 1024) << "the replaced strings were not freed";
  EXPECT_EQ(v.at(0).get_string(), big + "199");
}

TEST(MessageStorage, TwoThreadsCopyingFromOneMessageGetDisjointMemory) {
  // A parsed id copied on two threads at once (the answer's thread and a
  // cancellation's) allocates from the same block on both.  The block is
  // sized so that every copy fits in it (the pad's share is left over),
  // and both threads start together.
  const std::string text = R"({"id":"an id well past the inline string size","pad":")" +
                           std::string(60 * 1024, 'p') + "\"}";
  constexpr int per_thread = 500, rounds = 20;
  for (int round = 0; round < rounds; ++round) {
    const auto v = parsed(text, make_message_storage(text.size()));
    const json::string& id = v.at("id").get_string();
    std::vector<json::string> copies[2];
    std::latch start(2);
    auto copy_many = [&](std::vector<json::string>& out) {
      out.reserve(per_thread);
      start.arrive_and_wait();
      for (int i = 0; i < per_thread; ++i) out.emplace_back(id, v.storage());
    };
    std::thread a(copy_many, std::ref(copies[0])), b(copy_many, std::ref(copies[1]));
    a.join();
    b.join();
    std::vector<std::pair<const char*, const char*>> ranges;
    for (const auto& list : copies)
      for (const auto& c : list) {
        ASSERT_EQ(c, id);
        ranges.emplace_back(c.data(), c.data() + c.size());
      }
    std::sort(ranges.begin(), ranges.end());
    // All from the one block (no spill to the heap), ...
    ASSERT_LT(ranges.back().second - ranges.front().first, 3 * 60 * 1024);
    // ... and no two copies share a byte.
    for (std::size_t i = 1; i < ranges.size(); ++i)
      ASSERT_LE(ranges[i - 1].second, ranges[i].first) << "two copies share memory";
  }
}

TEST(MessageStorage, HeapCopyLeavesTheMessagesBlockBehind) {
  const std::string text = R"({"id":"an id kept long after its message"})";
  auto v = parsed(text, make_message_storage(text.size()));
  const auto kept = toolgate::heap_copy(v.at("id"));
  EXPECT_EQ(kept, v.at("id"));
  EXPECT_EQ(kept.storage().get(), json::storage_ptr().get());
}

TEST(MessageStorage, ReplaceKeepingStorageTakesTheSourceWhole) {
  const std::string text = R"({"a":{"b":[1,2,3],"c":"a string past the inline size"}})";
  auto v = parsed(text, make_message_storage(text.size()));
  json::object target;  // the default storage
  const auto* members = &v.at("a").get_object().begin()->value();
  replace_keeping_storage(target, std::move(v.as_object()["a"].as_object()));
  EXPECT_EQ(target.storage().get(), v.storage().get());
  EXPECT_EQ(&target.begin()->value(), members);  // moved, not copied
  // What Boost.JSON's assignment does instead: copies into its own storage.
  json::object assigned;
  assigned = std::move(target);
  EXPECT_NE(assigned.storage().get(), v.storage().get());
}

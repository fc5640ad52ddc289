// Sealed requestState (host/mcp/src/sealed_state.hpp): what the gateway
// seals opens only unchanged, under its own key, before it expires.
#include "sealed_state.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

using namespace toolgate::mcp;
namespace json = boost::json;
using namespace std::chrono_literals;

TEST(McpSealedState, WhatIsSealedOpensWithItsClaims) {
  StateSealer s;
  auto state = s.seal({{"tool", "write_file"}, {"args", "sha256:ab"}}, 10min);
  EXPECT_TRUE(state.starts_with("tg1."));
  std::string why;
  auto claims = s.open(state, &why);
  ASSERT_TRUE(claims) << why;
  EXPECT_EQ(claims->at("tool"), "write_file");
  EXPECT_EQ(claims->at("args"), "sha256:ab");
}

TEST(McpSealedState, AnyChangeAnotherKeyOrExpiryRefusesIt) {
  StateSealer s;
  auto state = s.seal({{"tool", "t"}}, 10min);
  std::string why;
  for (std::size_t i = 4; i < state.size(); i += 7) {  // change one character anywhere
    std::string forged = state;
    forged[i] = forged[i] == 'A' ? 'B' : 'A';
    EXPECT_FALSE(s.open(forged, &why)) << forged;
  }
  EXPECT_FALSE(StateSealer().open(state, &why));  // another gateway's key
  EXPECT_NE(why.find("seal does not match"), std::string::npos) << why;
  EXPECT_FALSE(s.open(state, &why, StateSealer::Clock::now() + 11min));
  EXPECT_EQ(why, "it has expired");
  for (const char* junk : {"", "tg1.", "tg1..", "xyz", "tg1.!!!.###"})
    EXPECT_FALSE(s.open(junk, &why)) << junk;
}

TEST(McpSealedState, ANonceIsClaimedOnceUntilItExpires) {
  UsedNonces used;
  const auto later = std::chrono::duration_cast<std::chrono::milliseconds>(
                         (StateSealer::Clock::now() + 10min).time_since_epoch())
                         .count();
  const auto n = random_nonce();
  EXPECT_EQ(n.size(), 32u);
  EXPECT_NE(n, random_nonce());
  EXPECT_TRUE(used.claim(n, later));
  EXPECT_FALSE(used.claim(n, later));
  EXPECT_TRUE(used.claim("expired", 1));  // long expired: forgotten at the next claim
  EXPECT_TRUE(used.claim("other", later));
  EXPECT_TRUE(used.claim("expired", 1));
}

TEST(McpSealedState, ArgumentsHashIgnoresSpellingNotValues) {
  EXPECT_EQ(arguments_hash(json::parse(R"({"b":1,"a":0.5})").as_object()),
            arguments_hash(json::parse(R"({"a":5E-1,"b":1})").as_object()));
  EXPECT_NE(arguments_hash(json::parse(R"({"a":1})").as_object()),
            arguments_hash(json::parse(R"({"a":2})").as_object()));
}

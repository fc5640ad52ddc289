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
  std::string why;
  EXPECT_TRUE(used.claim(n, later, &why));
  EXPECT_FALSE(used.claim(n, later, &why));
  EXPECT_EQ(why, "it was used already (an approval is for one run)");
  EXPECT_TRUE(used.claim("expired", 1, &why));  // long expired: forgotten at the next claim
  EXPECT_TRUE(used.claim("other", later, &why));
  EXPECT_TRUE(used.claim("expired", 1, &why));
}

TEST(McpSealedState, SharedKeysSealWithTheFirstAndOpenWithAny) {
  const std::string old_key(40, 'o'), new_key(40, 'n');
  StateSealer before({old_key});
  StateSealer replica({old_key});
  StateSealer rotated({new_key, old_key});
  std::string why;
  const auto sealed_before = before.seal({{"tool", "t"}}, 10min);
  EXPECT_TRUE(replica.open(sealed_before, &why)) << why;  // any replica holding the key
  EXPECT_TRUE(rotated.open(sealed_before, &why)) << why;  // the old key still opens
  const auto sealed_after = rotated.seal({{"tool", "t"}}, 10min);
  EXPECT_FALSE(before.open(sealed_after, &why));  // sealed with the new key
  EXPECT_TRUE(StateSealer({new_key}).open(sealed_after, &why)) << why;
  EXPECT_FALSE(StateSealer().open(sealed_after, &why));
  EXPECT_THROW(StateSealer(std::vector<std::string>{}), std::invalid_argument);
}

TEST(McpSealedState, ArgumentsHashIgnoresSpellingNotValues) {
  EXPECT_EQ(arguments_hash(json::parse(R"({"b":1,"a":0.5})").as_object()),
            arguments_hash(json::parse(R"({"a":5E-1,"b":1})").as_object()));
  EXPECT_NE(arguments_hash(json::parse(R"({"a":1})").as_object()),
            arguments_hash(json::parse(R"({"a":2})").as_object()));
}

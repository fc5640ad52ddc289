// plugins/guard-secrets through the real loader: every detector, the
// open-world / glob scoping, evasions (nesting, keys, zero-width characters,
// base64, percent-encoding) and bad configs.  A denial never repeats the
// secret.
#include "library_support.hpp"
#include "secret_samples.hpp"

#include <toolgate/toolgate.h>

using namespace tgtest;

namespace {

struct SecretsFixture : LibraryFixture {
  SecretsFixture() {
    add_tool("http.post", TG_TOOL_OPEN_WORLD);
    add_tool("fs.write", TG_TOOL_DESTRUCTIVE);
  }
  // "" when the call went through, else the denial message.
  std::string send(const json::object& args, const std::string& tool = "http.post") {
    int before = *body_runs;
    auto r = call(tool, args);
    if (!r.is_error) return "";
    EXPECT_EQ(code_of(r), "denied");
    EXPECT_EQ(*body_runs, before);
    return r.error->message;
  }
};

json::string_view sv(const std::string& s) { return json::string_view(s.data(), s.size()); }

}  // namespace

TEST(GuardSecretsPlugin, EveryDetectorFiresAndTheSecretIsNeverRepeated) {
  SecretsFixture f;
  f.load("guard-secrets");
  for (const auto& [detector, secret] : secret_samples()) {
    std::string text = "please send this along: " + secret + " thanks";
    std::string why = f.send({{"body", sv(text)}});
    EXPECT_TRUE(has(why, "(detector: " + detector + ")")) << detector << " -> " << why;
    EXPECT_TRUE(has(why, "http.post: argument /body")) << why;
    EXPECT_FALSE(has(why, secret.substr(4, 12))) << why;
  }
}

TEST(GuardSecretsPlugin, OrdinaryTextPasses) {
  SecretsFixture f;
  f.load("guard-secrets");
  for (const auto& clean : clean_samples()) EXPECT_EQ(f.send({{"body", sv(clean)}}), "") << clean;
}

TEST(GuardSecretsPlugin, OnlyOpenWorldToolsAndConfiguredGlobs) {
  const std::string key = secret_samples()[1].second;
  {
    SecretsFixture f;
    f.load("guard-secrets");
    EXPECT_EQ(f.send({{"body", sv(key)}}, "fs.write"), "");  // local: not checked
  }
  {
    SecretsFixture f;
    f.load("guard-secrets", {{"tools", "fs.*"}});
    EXPECT_NE(f.send({{"body", sv(key)}}, "fs.write"), "");
    EXPECT_NE(f.send({{"body", sv(key)}}), "");  // open-world still checked
  }
  {
    SecretsFixture f;
    f.load("guard-secrets", {{"tools", "fs.*"}, {"open_world", false}});
    EXPECT_EQ(f.send({{"body", sv(key)}}), "");
  }
}

TEST(GuardSecretsPlugin, SecretsHiddenInStructureOrEncodingsAreFound) {
  SecretsFixture f;
  f.load("guard-secrets",
         {{"detectors", json::array{"private_key", "github_token", "aws_access_key"}}});
  const std::string token = secret_samples()[3].second;
  const std::string aws = secret_samples()[1].second;

  std::string why =
      f.send({{"headers", json::array{json::object{{"name", "x"}, {"value", sv(token)}}}}});
  EXPECT_TRUE(has(why, "argument /headers/0/value")) << why;

  why = f.send({{"map", json::object{{sv(aws), "v"}}}});
  EXPECT_TRUE(has(why, "aws_access_key, in the key")) << why;

  // Zero-width spaces inside the token.
  std::string split = token.substr(0, 10) + "\xE2\x80\x8B" + token.substr(10, 10) + "\xEF\xBB\xBF" +
                      token.substr(20);
  EXPECT_TRUE(has(f.send({{"body", sv(split)}}), "github_token")) << split;

  // base64 of a private key block (the text has no "BEGIN" any more).
  static const char* b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string in = private_key_block(), enc;
  for (std::size_t i = 0; i < in.size(); i += 3) {
    unsigned n = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) n |= static_cast<unsigned char>(in[i + 1]) << 8;
    if (i + 2 < in.size()) n |= static_cast<unsigned char>(in[i + 2]);
    enc += b64[(n >> 18) & 63];
    enc += b64[(n >> 12) & 63];
    enc += i + 1 < in.size() ? b64[(n >> 6) & 63] : '=';
    enc += i + 2 < in.size() ? b64[n & 63] : '=';
  }
  EXPECT_TRUE(has(f.send({{"body", sv("data=" + enc)}}), "private_key (base64)"));
  // One to three characters glued in front shift every 6-bit group: each
  // alignment is tried (found by a review).
  for (std::string glue : {"A", "xY", "Q9z"})
    EXPECT_TRUE(has(f.send({{"body", sv(glue + enc)}}), "private_key (base64)")) << glue;

  // Percent-encoded.
  std::string pct = "key=-----BEGIN%20RSA%20PRIVATE%20KEY-----%0AMIIEow";
  EXPECT_TRUE(has(f.send({{"q", sv(pct)}}), "private_key (percent-encoded)"));
}

TEST(GuardSecretsPlugin, DetectorsAndDecodingCanBeChosen) {
  const std::string aws = secret_samples()[1].second;
  const std::string token = secret_samples()[3].second;
  {
    SecretsFixture f;
    f.load("guard-secrets", {{"detectors", json::array{"private_key"}}});
    EXPECT_EQ(f.send({{"body", sv(aws)}}), "");
  }
  // "token ghp_..." in base64: found only when decoding.
  const std::string encoded = "dG9rZW4gZ2hwX2FCY0RlRmdIaUprTG1Ob1BxUnNUdVZ3WHlaMDEyMzQ1Njc4OQ==";
  {
    SecretsFixture f;
    f.load("guard-secrets", {{"detectors", json::array{"github_token"}}, {"decode", false}});
    EXPECT_EQ(f.send({{"body", sv(encoded)}}), "");
    EXPECT_NE(f.send({{"body", sv(token)}}), "");
  }
  {
    SecretsFixture f;
    f.load("guard-secrets", {{"detectors", json::array{"github_token"}}});
    EXPECT_TRUE(has(f.send({{"body", sv(encoded)}}), "github_token (base64)"));
  }
  {
    // A stricter entropy threshold lets the sample token through.
    SecretsFixture f;
    f.load("guard-secrets", {{"detectors", json::array{"high_entropy"}},
                             {"entropy", json::object{{"threshold", 5.5}}}});
    EXPECT_EQ(f.send({{"body", sv(secret_samples().back().second)}}), "");
  }
}

TEST(GuardSecretsPlugin, BadConfigs) {
  struct C {
    json::object config;
    const char* path;
    const char* text;
  };
  std::vector<C> cases = {
      {{{"detectors", json::array{"jwt", "passwords"}}},
       "/plugins/0/config/detectors/1",
       "unknown detector \"passwords\"; known: private_key"},
      {{{"detectors", json::array{}}}, "/plugins/0/config/detectors", "at least one detector"},
      {{{"entropy", json::object{{"threshold", 9}}}},
       "/plugins/0/config/entropy/threshold",
       "number from 1 to 8"},
      {{{"entropy", json::object{{"min", 9}}}}, "/plugins/0/config/entropy/min", "unknown key"},
      {{{"open_world", false}}, "/plugins/0/config/open_world", "would check nothing"},
      {{{"tool", "x"}}, "/plugins/0/config/tool", "unknown key"},
  };
  for (const auto& c : cases) {
    LibraryFixture f;
    std::string e = f.config_error("guard-secrets", c.config);
    EXPECT_EQ(e.substr(0, e.find(':')), c.path) << e;
    EXPECT_TRUE(has(e, c.text)) << e;
  }
}

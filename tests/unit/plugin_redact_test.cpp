// plugins/redact through the real loader: secrets in text content, embedded
// resources and structured values are masked; images are left alone; the
// model gets one context note; clean results are untouched.
#include "library_support.hpp"
#include "secret_samples.hpp"

using namespace tgtest;

namespace {

json::string_view sv(const std::string& s) { return json::string_view(s.data(), s.size()); }

ToolCall make_call(const std::string& tool, json::object args) {
  ToolCall c;
  c.identity.tool = tool;
  c.identity.session_id = "test";
  c.arguments = std::move(args);
  return c;
}

}  // namespace

TEST(RedactPlugin, MasksEverySecretInContentAndValueAndAddsANote) {
  LibraryFixture f;
  f.load("redact");
  for (const auto& [detector, secret] : secret_samples()) {
    std::vector<ToolCall> calls;
    calls.push_back(make_call("echo", {{"log", sv("before " + secret + " after")}}));
    auto batch = f.host.call_batch(std::move(calls));
    const auto& r = batch.results.at(0);
    ASSERT_FALSE(r.is_error) << detector;
    const std::string value = std::string(r.value->at("log").as_string());
    // The mask covers the secret (for url_credentials: scheme, user and
    // password; the host stays readable) and nothing around it.
    EXPECT_TRUE(has(value, "before [REDACTED:" + detector + "]")) << value;
    EXPECT_TRUE(value.size() >= 6 && value.compare(value.size() - 6, 6, " after") == 0) << value;
    EXPECT_FALSE(has(value, secret.substr(4, 12))) << value;
    const std::string text = std::string(r.content.at(0).at("text").as_string());
    EXPECT_FALSE(has(text, secret)) << detector << ": " << text;
    EXPECT_TRUE(has(text, "[REDACTED:")) << text;
    ASSERT_EQ(batch.additional_contexts.size(), 1u) << detector;
    EXPECT_TRUE(has(batch.additional_contexts[0], "in the result of echo"));
    EXPECT_TRUE(has(batch.additional_contexts[0], detector));
  }
}

TEST(RedactPlugin, CleanResultsAreUntouchedAndGetNoNote) {
  LibraryFixture f;
  f.load("redact");
  json::array clean;
  for (const auto& c : clean_samples()) clean.push_back(sv(c));
  std::vector<ToolCall> calls;
  calls.push_back(make_call("echo", {{"items", clean}}));
  auto batch = f.host.call_batch(std::move(calls));
  EXPECT_EQ(batch.results[0].value->at("items"), clean);
  EXPECT_TRUE(batch.additional_contexts.empty());
}

TEST(RedactPlugin, KeepsTheTextAroundAMultiLineKeyAndLeavesImagesAlone) {
  LibraryFixture f;
  ToolDefinition t;
  t.name = "files.show";
  const std::string key = private_key_block();
  // Image data that the high-entropy detector would flag if it were text.
  const std::string image = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk";
  t.execute = [](const ToolContext&) { return ToolOutput::success("ignored"); };
  t.render = [key, image](const json::value&) {
    return json::array{
        json::object{{"type", "text"}, {"text", sv("id_ed25519:\n" + key + "\nend of file")}},
        json::object{{"type", "image"}, {"data", sv(image)}, {"mimeType", "image/png"}},
        json::object{{"type", "resource"},
                     {"resource", json::object{{"uri", "file:///k"}, {"text", sv(key)}}}}};
  };
  f.host.register_tool(std::move(t));
  f.load("redact", {{"mask", "<secret removed>"}, {"note", false}});
  std::vector<ToolCall> calls;
  calls.push_back(make_call("files.show", {}));
  auto batch = f.host.call_batch(std::move(calls));
  const auto& r = batch.results[0];
  ASSERT_FALSE(r.is_error) << json::serialize(r.to_json());
  EXPECT_EQ(r.content[0].at("text"), "id_ed25519:\n<secret removed>\nend of file");
  EXPECT_EQ(r.content[1].at("data"), sv(image));
  EXPECT_EQ(r.content[2].at("resource").at("text"), "<secret removed>");
  EXPECT_TRUE(batch.additional_contexts.empty());  // "note": false
}

TEST(RedactPlugin, ToolFilterAndDetectorChoice) {
  const std::string token = secret_samples()[3].second;  // github_token
  {
    LibraryFixture f;
    f.load("redact", {{"tools", "!echo"}});
    EXPECT_EQ(f.call("echo", {{"t", sv(token)}}).value->at("t"), sv(token));
  }
  {
    LibraryFixture f;
    f.load("redact", {{"detectors", json::array{"aws_access_key"}}});
    EXPECT_EQ(f.call("echo", {{"t", sv(token)}}).value->at("t"), sv(token));
  }
}

TEST(RedactPlugin, BadConfigs) {
  LibraryFixture f;
  std::string e = f.config_error("redact", {{"mask", 1}});
  EXPECT_EQ(e.substr(0, e.find(':')), "/plugins/0/config/mask");
  EXPECT_TRUE(has(e, "must be a string"));
  LibraryFixture g;
  e = g.config_error("redact", {{"detectors", json::array{"ssn"}}});
  EXPECT_EQ(e.substr(0, e.find(':')), "/plugins/0/config/detectors/0");
}

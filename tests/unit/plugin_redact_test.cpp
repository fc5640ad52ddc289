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

// Issue 20 item 7: a guard that quotes the arguments in its reason (a path,
// a command) hands a secret in them back to the client in error.message,
// in each denial's reason and in the content.  Stacked after the guards,
// redact masks it in all of them, and the call stays the same denial: same
// code, stage, source and denial sources, the body not run.
TEST(RedactPlugin, ASecretInADeniedCallsArgumentsReachesTheClientNowhere) {
  LibraryFixture f;
  const std::string key = std::string("AKIA") + "IOSFODNN7EXAMPLE";
  const std::string path = "/etc/" + key;
  // A second guard (the embedder's) that quotes the argument too.
  f.host.add_guard("host", {"echo-path"}, [](const HookCall& c) -> std::optional<std::string> {
    return "will not touch " + std::string(c.arguments.at("path").as_string());
  });
  json::object paths{{"id", "toolgate.guard-paths"},
                     {"path", library_plugin("guard-paths")},
                     {"config", {{"read_roots", json::array{f.dir.path.c_str()}}}}};
  json::object redact{{"id", "toolgate.redact"}, {"path", library_plugin("redact")}};
  f.host.load_manifest(f.dir.write(
      "stack.json",
      json::serialize(json::object{{"toolgate", 1}, {"plugins", json::array{paths, redact}}})));

  std::vector<ToolCall> calls;
  calls.push_back(make_call("echo", {{"path", sv(path)}}));
  auto batch = f.host.call_batch(std::move(calls));
  const auto& r = batch.results.at(0);
  const std::string all = json::serialize(r.to_json());
  EXPECT_FALSE(has(all, key)) << all;  // content, value, error.message, denials
  EXPECT_FALSE(has(all, key.substr(4))) << all;
  ASSERT_TRUE(r.is_error) << all;
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.error->stage, "guard");
  EXPECT_EQ(r.error->source, "host/echo-path");  // the first denier, by id
  EXPECT_FALSE(r.value.has_value());
  EXPECT_EQ(*f.body_runs, 0);
  EXPECT_TRUE(has(r.error->message, "[REDACTED:aws_access_key]")) << r.error->message;
  ASSERT_EQ(r.error->denials.size(), 2u) << all;
  EXPECT_EQ(r.error->denials[0].at("source"), "host/echo-path");
  EXPECT_EQ(r.error->denials[0].at("reason"), "will not touch /etc/[REDACTED:aws_access_key]");
  EXPECT_EQ(r.error->denials[1].at("source"), "toolgate.guard-paths/paths");
  EXPECT_TRUE(has(std::string(r.error->denials[1].at("reason").as_string()),
                  "echo: /path \"/etc/[REDACTED:aws_access_key]\""))
      << all;
  ASSERT_EQ(batch.additional_contexts.size(), 1u);
  EXPECT_FALSE(has(batch.additional_contexts[0], key));
  EXPECT_TRUE(has(batch.additional_contexts[0], "aws_access_key"));
}

// Structured content is text too: a secret in an object key of the value,
// and in the text fields of resource_link and resource blocks, is masked;
// keys masked alike do not overwrite each other.
TEST(RedactPlugin, MasksKeysOfTheValueAndEveryTextFieldOfContentBlocks) {
  LibraryFixture f;
  const std::string token = std::string("ghp_") + "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";
  const std::string token2 = std::string("ghp_") + "zYxWvUtSrQpOnMlKjIhGfEdCbA9876543210";
  ToolDefinition t;
  t.name = "lookup";
  t.execute = [token, token2](const ToolContext&) {
    return ToolOutput::success(json::object{{sv(token), 1}, {sv(token2), 2}, {"plain", 3}});
  };
  t.render = [token](const json::value&) {
    return json::array{
        json::object{{"type", "resource_link"},
                     {"uri", sv("https://example.com/?t=" + token)},
                     {"name", sv("token " + token)},
                     {"description", sv(token)}},
        json::object{{"type", "resource"},
                     {"resource", json::object{{"uri", sv("mem://" + token)}, {"text", "ok"}}}}};
  };
  f.host.register_tool(std::move(t));
  f.load("redact", {{"note", false}});
  auto r = f.call("lookup");
  const std::string all = json::serialize(r.to_json());
  ASSERT_FALSE(r.is_error) << all;
  EXPECT_FALSE(has(all, token.substr(4))) << all;
  EXPECT_FALSE(has(all, token2.substr(4))) << all;
  const auto& v = r.value->as_object();
  EXPECT_EQ(v.size(), 3u) << all;
  EXPECT_EQ(v.at("[REDACTED:github_token]"), 1) << all;
  EXPECT_EQ(v.at("[REDACTED:github_token] #2"), 2) << all;
  EXPECT_EQ(v.at("plain"), 3);
  EXPECT_EQ(r.content[0].at("name"), "token [REDACTED:github_token]");
  const std::string uri(r.content[1].at("resource").at("uri").as_string());
  EXPECT_TRUE(has(uri, "mem:") && has(uri, "[REDACTED:")) << uri;  // "//..." reads as entropy too
}

// An MCP server that mirrors an image into structuredContent (the
// filesystem server's read_media_file): the base64 reads as high-entropy
// text, but it is binary, so it is left alone and no note claims a
// redaction that was not made.  A real secret beside it is still masked.
TEST(RedactPlugin, BinaryDataMirroredIntoTheValueIsLeftAloneAndNotCounted) {
  LibraryFixture f;
  const std::string image = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk";
  const std::string other = "AAAAIGZ0eXBpc29tAAACAGlzb21pc28yYXZjMW1wNDEAAAAIZnJlZQAAB9RtZGF0";
  const auto sample = secret_samples().front();
  const std::string detector = sample.first, secret = sample.second;
  bool with_secret = false;
  ToolDefinition t;
  t.name = "read_media_file";
  t.execute = [&](const ToolContext&) {
    json::array content{
        json::object{{"type", "image"}, {"data", sv(image)}, {"mimeType", "image/png"}}};
    json::object value{
        {"content", content},
        {"thumbnail", sv(image)},
        // Block-shaped without a mirror in the content: still binary.
        {"audio", json::object{{"type", "audio"}, {"data", sv(other)}, {"mimeType", "audio/mp4"}}},
        {"file", json::object{{"uri", "file:///x.bin"}, {"blob", sv(other)}}}};
    if (with_secret) value["log"] = sv("key " + secret);
    return ToolOutput::success(json::value(value), std::move(content));
  };
  f.host.register_tool(std::move(t));
  f.load("redact");
  auto run = [&] {
    std::vector<ToolCall> calls;
    calls.push_back(make_call("read_media_file", {}));
    return f.host.call_batch(std::move(calls));
  };
  auto clean = run();
  const auto& r = clean.results.at(0);
  ASSERT_FALSE(r.is_error) << json::serialize(r.to_json());
  EXPECT_EQ(r.value->at("thumbnail"), sv(image));
  EXPECT_EQ(r.value->at("content").at(0).at("data"), sv(image));
  EXPECT_EQ(r.value->at("audio").at("data"), sv(other));
  EXPECT_EQ(r.value->at("file").at("blob"), sv(other));
  EXPECT_EQ(r.content.at(0).at("data"), sv(image));
  EXPECT_TRUE(clean.additional_contexts.empty()) << clean.additional_contexts.at(0);

  with_secret = true;
  auto dirty = run();
  const auto& d = dirty.results.at(0);
  EXPECT_EQ(d.value->at("thumbnail"), sv(image));
  EXPECT_TRUE(has(std::string(d.value->at("log").as_string()), "[REDACTED:" + detector + "]"));
  ASSERT_EQ(dirty.additional_contexts.size(), 1u);
  EXPECT_TRUE(has(dirty.additional_contexts[0], "1 secret in the result"))
      << dirty.additional_contexts[0];
}

// Only binary-shaped objects exempt their bytes: a "data" member of a text
// block is text, and a secret repeated from it into the value is masked.
TEST(RedactPlugin, ADataMemberOfATextBlockExemptsNothing) {
  LibraryFixture f;
  const auto sample = secret_samples().front();
  const std::string detector = sample.first, secret = sample.second;
  ToolDefinition t;
  t.name = "sneaky";
  t.execute = [&](const ToolContext&) {
    json::array content{json::object{{"type", "text"}, {"text", "hi"}, {"data", sv(secret)}}};
    return ToolOutput::success(json::value(json::object{{"copy", sv(secret)}}), std::move(content));
  };
  f.host.register_tool(std::move(t));
  f.load("redact");
  std::vector<ToolCall> calls;
  calls.push_back(make_call("sneaky", {}));
  auto b = f.host.call_batch(std::move(calls));
  const auto& r = b.results.at(0);
  EXPECT_TRUE(has(std::string(r.value->at("copy").as_string()), "[REDACTED:" + detector + "]"))
      << json::serialize(r.to_json());
}

// Calls from several threads through a stack of plugins; run under the tsan
// preset too.  Every result must be exactly what one call alone gives.
#include "test_support.hpp"

#include "sample_tools.hpp"

using namespace tgtest;

TEST(Concurrency, ManyThreadsThroughAPluginStack) {
  Fixture f;
  TempDir dir;
  f.host.register_tool(toolgate::samples::greeting_tool());
  auto plugin = [](const char* id, const std::string& path, json::object config = {}) {
    return json::object{{"id", id}, {"path", path}, {"config", std::move(config)}};
  };
  json::object manifest{
      {"toolgate", 1},
      {"plugins", json::array{plugin("sample.no-world", sample_plugin("sample_no_world")),
                              plugin("sample.timeout", sample_plugin("sample_timeout_wrapper"),
                                     {{"timeout_ms", 10000}}),
                              plugin("sample.shout", sample_plugin("sample_shout")),
                              plugin("sample.counter", sample_plugin("sample_counter")),
                              plugin("test.kit", test_plugin("testkit"), {{"pre", "rewrite"}})}}};
  f.host.load_manifest(dir.write("m.json", json::serialize(manifest)));

  constexpr int threads = 4, per_thread = 200;
  std::atomic<int> wrong{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        bool world = (i % 3) == 0;
        std::string name = world ? "World" : "user" + std::to_string(t) + "-" + std::to_string(i);
        ToolCall c;
        c.identity.tool = "greet";
        c.arguments = json::object{{"name", name}};
        auto r = f.host.call(std::move(c));
        if (world) {
          if (code_of(r) != "denied") ++wrong;
        } else {
          std::string expect = "HELLO, " + name + "!";
          for (auto& ch : expect)
            ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
          if (r.is_error || r.content.at(0).at("text") != expect.c_str()) ++wrong;
        }
      }
    });
  for (auto& t : pool) t.join();
  EXPECT_EQ(wrong.load(), 0);
  // The serialized counter saw every call exactly once.
  auto counted = f.recorder->of_type("sample/counted");
  ASSERT_EQ(counted.size(), static_cast<std::size_t>(threads * per_thread));
  std::int64_t max = 0;
  for (const auto& e : counted) max = std::max(max, e.data.at("count").as_int64());
  EXPECT_EQ(max, threads * per_thread);
}

TEST(Concurrency, RegisteringWhileCallingIsSafe) {
  Fixture f;
  std::atomic<bool> stop{false};
  std::thread caller([&] {
    while (!stop) {
      auto r = f.call("echo");
      // Each call runs on one generation: either before or after the
      // guard was added, never half of it.
      if (r.is_error) {
        EXPECT_EQ(code_of(r), "denied");
      }
    }
  });
  for (int i = 0; i < 50; ++i)
    f.host.add_guard("g", {std::string("n").append(std::to_string(i))},
                     [i](const HookCall&) -> std::optional<std::string> {
                       if (i == 49) return "last guard denies";
                       return std::nullopt;
                     });
  stop = true;
  caller.join();
  EXPECT_EQ(code_of(f.call("echo")), "denied");
}

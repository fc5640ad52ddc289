// The servers file of `toolgate mcp --servers` (host/mcp/include/toolgate/
// mcp/server_group.hpp): the samples parse, and everything the published
// schema refuses (tests/servers_schema_rejects.json) the parser refuses
// too, saying where.
#include <toolgate/mcp/server_group.hpp>

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace toolgate::mcp;
namespace json = boost::json;

namespace {
std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
const std::filesystem::path source = TOOLGATE_SOURCE_DIR;
}  // namespace

TEST(McpServerGroupConfig, TheSamplesParseAsWritten) {
  int seen = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(source / "samples")) {
    if (!e.path().string().ends_with(".servers.json")) continue;
    ++seen;
    const auto c = read_server_group_config(e.path());
    EXPECT_EQ(c.separator, ".");
    ASSERT_EQ(c.servers.size(), 3u) << e.path();
    EXPECT_EQ(c.servers[0].name, "fs");
    EXPECT_EQ(c.servers[0].command.front(), "npx");
    EXPECT_TRUE(c.servers[0].prefixed);
    EXPECT_EQ(c.servers[2].url, "https://mcp.internal.example/docs/mcp");
    // Relative to the file, as in manifests.
    EXPECT_EQ(c.servers[2].token_file, e.path().parent_path() / "docs.token");
  }
  EXPECT_EQ(seen, 1);
}

TEST(McpServerGroupConfig, WhatTheSchemaRefusesTheParserRefusesSayingWhere) {
  const auto rejects = json::parse(read(source / "tests/servers_schema_rejects.json")).as_array();
  ASSERT_FALSE(rejects.empty());
  for (const auto& bad : rejects) {
    std::string why;
    EXPECT_FALSE(parse_server_group_config(json::serialize(bad), &why)) << json::serialize(bad);
    EXPECT_FALSE(why.empty());
  }
  std::string why;
  EXPECT_FALSE(parse_server_group_config(
      R"({"toolgate_servers":1,"servers":[{"name":"a","comand":["x"]}]})", &why));
  EXPECT_EQ(why,
            "/servers/0/comand: unknown key; remove it or use one of: name, command, url, "
            "token_file, ca_file, prefix");
  EXPECT_FALSE(parse_server_group_config(
      R"({"toolgate_servers":1,"servers":[{"name":"a","command":["x"]},{"name":"a","command":["y"]}]})",
      &why));
  EXPECT_EQ(why, "/servers/1/name: \"a\" names two servers; names are unique");
  EXPECT_FALSE(parse_server_group_config(
      R"({"toolgate_servers":1,"servers":[{"name":"a","command":["x"],"name":"b"}]})", &why));
  EXPECT_NE(why.find("duplicate key"), std::string::npos) << why;
  auto ok = parse_server_group_config(
      R"({"toolgate_servers":1,"separator":"__","servers":[{"name":"a","command":["x","--y"],"prefix":false}]})",
      &why);
  ASSERT_TRUE(ok) << why;
  EXPECT_EQ(ok->separator, "__");
  EXPECT_FALSE(ok->servers[0].prefixed);
  EXPECT_EQ(ok->servers[0].command, (std::vector<std::string>{"x", "--y"}));
}

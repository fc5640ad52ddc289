// The MCP client's roots as a client context (host/mcp/src/client_roots.hpp):
// which URIs name a local folder, and what a roots/list result becomes.
#include "client_roots.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

using namespace toolgate::mcp;
namespace json = boost::json;

TEST(McpClientRoots, LocalFileUrisNameAbsolutePaths) {
  EXPECT_EQ(path_of_file_uri("file:///home/me/project"), "/home/me/project");
  EXPECT_EQ(path_of_file_uri("file://localhost/srv/x"), "/srv/x");
  EXPECT_EQ(path_of_file_uri("FILE:///a"), "/a");
  EXPECT_EQ(path_of_file_uri("file:///home/me/my%20project/%C3%A9t%C3%A9"),
            "/home/me/my project/\xC3\xA9t\xC3\xA9");
}

TEST(McpClientRoots, AnythingElseNamesNoFolder) {
  for (const char* uri :
       {"https://example.com/x", "file://server/share", "file:relative", "file://", "/plain/path",
        "file:///a%2", "file:///a%zz", "file:///a%00b", "file:///a?x=1", "file:///a#frag", ""})
    EXPECT_FALSE(path_of_file_uri(uri)) << uri;
}

TEST(McpClientRoots, ARootsListBecomesTheContextWithOnlyLocalFolders) {
  auto result = json::parse(R"({"roots":[{"uri":"file:///w/a","name":"a"},
      {"uri":"https://x/y"},{"name":"no uri"},{"uri":"file:///w/b%20c"}]})")
                    .as_object();
  EXPECT_EQ(json::serialize(roots_context(result)), R"({"roots":["/w/a","/w/b c"]})");
  // Declared roots, listed none (or a malformed result): an empty list, not "unknown".
  EXPECT_EQ(json::serialize(roots_context(json::object{})), R"({"roots":[]})");
}

#include "shell_parse.hpp"

#include <memory>
#include <stdexcept>

namespace tgp::shell {

bool Redirect::writes() const { return op.find('>') != std::string::npos; }

namespace {

struct SyntaxError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool meta(char c) {
  return blank(c) || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' ||
         c == '<' || c == '>';
}
bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
void append_utf8(std::string& out, unsigned long cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Context of the list being parsed: the pipelines and functions around it.
struct Ctx {
  std::vector<std::pair<int, int>> outer;  // enclosing (pipeline, stage)
  std::vector<std::string> functions;
  std::size_t depth = 0;
};

class Parser {
 public:
  Parser(std::string_view s, Script& out, int& next_pipeline, Limits limits)
      : s_(s), out_(out), next_pipeline_(next_pipeline), limits_(limits) {}

  // Parses commands until `term` (')' or '}'; 0 = end of input).
  void list(char term, const Ctx& ctx) {
    if (ctx.depth > limits_.max_depth)
      throw SyntaxError("nests more than " + std::to_string(limits_.max_depth) + " levels deep");
    Pending cur = fresh(ctx);
    while (true) {
      while (i_ < s_.size() && blank(s_[i_])) ++i_;
      if (i_ >= s_.size()) {
        finish(cur);
        if (term) throw SyntaxError(std::string("missing \"") + term + "\"");
        return;
      }
      const char c = s_[i_];
      if (term && c == term && (term == ')' || cur.words.empty())) {
        ++i_;
        finish(cur);
        return;
      }
      if (c == ')') throw SyntaxError("unexpected \")\"");
      if (c == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
        continue;
      }
      if (c == '\\' && i_ + 1 < s_.size() && s_[i_ + 1] == '\n') {
        i_ += 2;
        continue;
      }
      if (c == '\n' || c == ';') {
        ++i_;
        finish(cur);
        cur = fresh(ctx);
        continue;
      }
      if (c == '&' && peek(1) == '&') {
        i_ += 2;
        finish(cur);
        cur = fresh(ctx);
        continue;
      }
      if (c == '|' && peek(1) == '|') {
        i_ += 2;
        finish(cur);
        cur = fresh(ctx);
        continue;
      }
      if (c == '|') {
        i_ += peek(1) == '&' ? 2 : 1;
        finish(cur);
        int pipeline = cur.pipeline, stage = cur.stage + 1;
        cur = fresh(ctx);
        cur.pipeline = pipeline;
        cur.stage = stage;
        continue;
      }
      if (c == '&' && peek(1) != '>') {
        ++i_;
        finish(cur);
        cur = fresh(ctx);
        continue;
      }
      // "( list )" is a subshell.  "(( expr ))" is parsed the same way, as
      // nested subshells: arithmetic can hide "$(cmd)" and array subscripts
      // that run code, so its text is never skipped unread.
      if (c == '(') {
        if (function_name(cur)) continue;
        if (!cur.words.empty()) throw SyntaxError("unexpected \"(\"");
        ++i_;
        list(')', inner(ctx, cur));
        continue;
      }
      if (c == '{' && cur.words.empty() &&
          (i_ + 1 >= s_.size() || blank(s_[i_ + 1]) || s_[i_ + 1] == '\n')) {
        ++i_;
        list('}', inner(ctx, cur));
        continue;
      }
      if (c == '{' && cur.words.size() == 2 && cur.words[0].text == "function") {
        Ctx body = inner(ctx, cur);
        body.functions.push_back(cur.words[1].text);
        cur.words.clear();
        ++i_;
        list('}', body);
        continue;
      }
      if (redirect(cur, ctx)) continue;
      cur.words.push_back(word(ctx));
    }
  }

 private:
  struct Pending {
    std::vector<Word> words;
    std::vector<Redirect> redirects;
    int pipeline = 0, stage = 0;
    std::vector<std::pair<int, int>> outer;
    std::vector<std::string> functions;
    std::size_t depth = 0;
  };

  char peek(std::size_t k) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }

  Pending fresh(const Ctx& ctx) {
    Pending p;
    p.pipeline = next_pipeline_++;
    p.outer = ctx.outer;
    p.functions = ctx.functions;
    p.depth = ctx.depth;
    return p;
  }

  // The context for a group, subshell or function body inside `cur`'s
  // pipeline stage.
  Ctx inner(const Ctx& ctx, const Pending& cur) {
    Ctx c = ctx;
    c.outer.emplace_back(cur.pipeline, cur.stage);
    c.depth = ctx.depth + 1;
    return c;
  }

  void finish(Pending& p) {
    if (p.words.empty() && p.redirects.empty()) return;
    Command c;
    c.words = std::move(p.words);
    c.redirects = std::move(p.redirects);
    c.pipelines = p.outer;
    c.pipelines.emplace_back(p.pipeline, p.stage);
    c.functions = p.functions;
    out_.commands.push_back(std::move(c));
    p.words.clear();
    p.redirects.clear();
  }

  // "name ( )" or "function name ( )": a function definition.  Its body (a
  // group or subshell) is parsed with the name recorded, so a body that
  // calls its own function is visible to the fork-bomb rule.
  bool function_name(Pending& cur) {
    std::size_t j = i_ + 1;
    while (j < s_.size() && blank(s_[j])) ++j;
    if (j >= s_.size() || s_[j] != ')') return false;
    std::string name;
    if (cur.words.size() == 1)
      name = cur.words[0].text;
    else if (cur.words.size() == 2 && cur.words[0].text == "function")
      name = cur.words[1].text;
    else
      throw SyntaxError("unexpected \"(\"");
    i_ = j + 1;
    while (i_ < s_.size() && (blank(s_[i_]) || s_[i_] == '\n')) ++i_;
    Ctx body;
    body.outer = cur.outer;
    body.outer.emplace_back(cur.pipeline, cur.stage);
    body.functions = cur.functions;
    body.functions.push_back(name);
    body.depth = cur.depth + 1;
    cur.words.clear();
    if (i_ < s_.size() && s_[i_] == '{') {
      ++i_;
      list('}', body);
    } else if (i_ < s_.size() && s_[i_] == '(') {
      ++i_;
      list(')', body);
    } else {
      throw SyntaxError("a function body must be a { group } or ( subshell )");
    }
    return true;
  }

  void skip_balanced(char open, char close) {
    int level = 0;
    for (; i_ < s_.size(); ++i_) {
      if (s_[i_] == open)
        ++level;
      else if (s_[i_] == close && --level == 0) {
        ++i_;
        return;
      }
    }
    throw SyntaxError(std::string("missing \"") + close + "\"");
  }

  bool redirect(Pending& cur, const Ctx& ctx) {
    std::size_t j = i_;
    while (j < s_.size() && s_[j] >= '0' && s_[j] <= '9') ++j;
    std::string op;
    if (j < s_.size() && s_[j] == '&' && j == i_ && j + 1 < s_.size() && s_[j + 1] == '>') {
      op = (j + 2 < s_.size() && s_[j + 2] == '>') ? "&>>" : "&>";
    } else if (j < s_.size() && (s_[j] == '<' || s_[j] == '>')) {
      // Process substitution <( ) / >( ) is a word, not a redirection.
      if (j == i_ && j + 1 < s_.size() && s_[j + 1] == '(') return false;
      static const char* ops[] = {"<<<", "<<-", "&>>", ">>", "<<", "<&",
                                  ">&",  "<>",  ">|",  "<",  ">"};
      for (const char* o : ops)
        if (s_.substr(j, std::string_view(o).size()) == o) {
          op = o;
          break;
        }
    } else {
      return false;
    }
    i_ = j + op.size();
    while (i_ < s_.size() && blank(s_[i_])) ++i_;
    if (i_ >= s_.size() ||
        (meta(s_[i_]) && !(s_[i_] == '<' && peek(1) == '(') && !(s_[i_] == '>' && peek(1) == '(')))
      throw SyntaxError("a redirection \"" + op + "\" has no target");
    cur.redirects.push_back({op, word(ctx)});
    return true;
  }

  // The command(s) of a substitution, parsed in place; their indices go into
  // the word that holds it.
  void substitution(Word& w, const Ctx& ctx, char term) {
    std::size_t first = out_.commands.size();
    Ctx sub;
    sub.functions = ctx.functions;
    sub.depth = ctx.depth + 1;
    list(term, sub);
    for (std::size_t k = first; k < out_.commands.size(); ++k) w.substitutions.push_back(k);
    w.dynamic = true;
  }

  void backticks(Word& w, const Ctx& ctx) {
    // Inside backticks, \` \\ and \$ are escapes; the rest is a script.
    std::string inner;
    ++i_;
    while (true) {
      if (i_ >= s_.size()) throw SyntaxError("missing closing \"`\"");
      char c = s_[i_];
      if (c == '`') {
        ++i_;
        break;
      }
      if (c == '\\' && i_ + 1 < s_.size() &&
          (s_[i_ + 1] == '`' || s_[i_ + 1] == '\\' || s_[i_ + 1] == '$')) {
        inner += s_[i_ + 1];
        i_ += 2;
        continue;
      }
      inner += c;
      ++i_;
    }
    if (ctx.depth + 1 > limits_.max_depth)
      throw SyntaxError("nests more than " + std::to_string(limits_.max_depth) + " levels deep");
    owned_.push_back(std::make_unique<std::string>(std::move(inner)));
    Parser sub(*owned_.back(), out_, next_pipeline_, limits_);
    Ctx c;
    c.functions = ctx.functions;
    c.depth = ctx.depth + 1;
    std::size_t first = out_.commands.size();
    sub.list(0, c);
    for (auto& o : sub.owned_) owned_.push_back(std::move(o));
    for (std::size_t k = first; k < out_.commands.size(); ++k) w.substitutions.push_back(k);
    w.dynamic = true;
  }

  // $'...': ANSI-C quoting.  Decoded, so $'\x73udo' is seen as "sudo".
  void ansi_c(Word& w) {
    i_ += 2;
    while (true) {
      if (i_ >= s_.size()) throw SyntaxError("missing closing \"'\"");
      char c = s_[i_++];
      if (c == '\'') return;
      if (c != '\\' || i_ >= s_.size()) {
        w.text += c;
        continue;
      }
      char e = s_[i_++];
      switch (e) {
        case 'n':
          w.text += '\n';
          break;
        case 't':
          w.text += '\t';
          break;
        case 'r':
          w.text += '\r';
          break;
        case 'a':
          w.text += '\a';
          break;
        case 'b':
          w.text += '\b';
          break;
        case 'e':
        case 'E':
          w.text += '\x1b';
          break;
        case 'f':
          w.text += '\f';
          break;
        case 'v':
          w.text += '\v';
          break;
        case 'x':
        case 'u':
        case 'U': {
          std::size_t max = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          unsigned long v = 0;
          std::size_t n = 0;
          while (n < max && i_ < s_.size() && hexval(s_[i_]) >= 0)
            v = v * 16 + hexval(s_[i_++]), ++n;
          if (n == 0) {
            w.text += '\\';
            w.text += e;
          } else if (e == 'x') {
            w.text += static_cast<char>(v);
          } else {
            append_utf8(w.text, v);
          }
          break;
        }
        case '0':
        case '1':
        case '2':
        case '3':
        case '4':
        case '5':
        case '6':
        case '7': {
          unsigned v = static_cast<unsigned>(e - '0');
          for (int n = 0; n < 2 && i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '7'; ++n)
            v = v * 8 + static_cast<unsigned>(s_[i_++] - '0');
          w.text += static_cast<char>(v);
          break;
        }
        case 'c':
          if (i_ < s_.size()) w.text += static_cast<char>(s_[i_++] & 0x1f);
          break;
        default:
          w.text += e;
          break;  // \\ \' \" \?
      }
    }
  }

  void dollar(Word& w, const Ctx& ctx) {
    char n = peek(1);
    if (n == '\'') return ansi_c(w);
    if (n == '(') {  // $( ) and $(( )) -- the latter as $( ( ) ), see list()
      i_ += 2;
      substitution(w, ctx, ')');
      w.text += "$(...)";
      return;
    }
    if (n == '{') {
      std::size_t start = i_;
      ++i_;
      skip_balanced('{', '}');
      const std::string_view expansion = s_.substr(start, i_ - start);
      // "${x:-$(sudo id)}" runs the substitution, and bash ends the
      // expansion at its own first "}", which brace counting may not: the
      // commands inside are not read here, so such an expansion is refused.
      if (expansion.find("$(") != std::string_view::npos ||
          expansion.find('`') != std::string_view::npos ||
          expansion.find("<(") != std::string_view::npos ||
          expansion.find(">(") != std::string_view::npos)
        throw SyntaxError("a command substitution inside ${...} cannot be checked");
      w.text += std::string(expansion);
      w.dynamic = true;
      return;
    }
    if (name_char(n) || n == '@' || n == '*' || n == '#' || n == '?' || n == '-' || n == '$' ||
        n == '!') {
      std::size_t start = i_++;
      if (name_char(n) && !(n >= '0' && n <= '9'))
        while (i_ < s_.size() && name_char(s_[i_])) ++i_;
      else
        ++i_;
      w.text += std::string(s_.substr(start, i_ - start));
      w.dynamic = true;
      return;
    }
    w.text += '$';
    ++i_;
  }

  void double_quoted(Word& w, const Ctx& ctx) {
    ++i_;
    while (true) {
      if (i_ >= s_.size()) throw SyntaxError("missing closing '\"'");
      char c = s_[i_];
      if (c == '"') {
        ++i_;
        return;
      }
      if (c == '\\' && i_ + 1 < s_.size()) {
        char e = s_[i_ + 1];
        if (e == '\n') {
          i_ += 2;
        } else if (e == '$' || e == '`' || e == '"' || e == '\\') {
          w.text += e;
          i_ += 2;
        } else {
          w.text += '\\';
          ++i_;
        }
        continue;
      }
      if (c == '$' && peek(1) != '\'') {
        dollar(w, ctx);
        continue;
      }
      if (c == '`') {
        backticks(w, ctx);
        continue;
      }
      w.text += c;
      ++i_;
    }
  }

  Word word(const Ctx& ctx) {
    Word w;
    // <( ) and >( ): process substitution, a word naming a pipe.
    if ((s_[i_] == '<' || s_[i_] == '>') && peek(1) == '(') {
      i_ += 2;
      substitution(w, ctx, ')');
      w.text = "/dev/fd/N";
      return w;
    }
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (meta(c)) break;
      if (c == '\\') {
        if (i_ + 1 >= s_.size()) {
          ++i_;
          break;
        }
        if (s_[i_ + 1] != '\n') w.text += s_[i_ + 1];
        i_ += 2;
      } else if (c == '\'') {
        std::size_t end = s_.find('\'', i_ + 1);
        if (end == std::string_view::npos) throw SyntaxError("missing closing \"'\"");
        w.text += std::string(s_.substr(i_ + 1, end - i_ - 1));
        i_ = end + 1;
      } else if (c == '"') {
        double_quoted(w, ctx);
      } else if (c == '$') {
        if (peek(1) == '"') {  // $"..." is a (localised) double-quoted string
          ++i_;
          double_quoted(w, ctx);
        } else {
          dollar(w, ctx);
        }
      } else if (c == '`') {
        backticks(w, ctx);
      } else {
        w.text += c;
        ++i_;
      }
    }
    return w;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  Script& out_;
  int& next_pipeline_;
  Limits limits_;
  std::vector<std::unique_ptr<std::string>> owned_;  // backtick bodies
};

}  // namespace

std::optional<Script> parse(std::string_view text, std::string* error, Limits limits) {
  Script out;
  int next_pipeline = 0;
  try {
    Parser p(text, out, next_pipeline, limits);
    Ctx ctx;
    p.list(0, ctx);
  } catch (const SyntaxError& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
  return out;
}

}  // namespace tgp::shell

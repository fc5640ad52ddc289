#include "elf_file.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace toolgate::detail {

namespace {

// A plugin larger than this is not read whole (nothing real comes close).
constexpr std::uint64_t max_image_bytes = 1ull << 30;

struct Bytes {
  std::vector<char> data;
  bool beyond(std::uint64_t off, std::uint64_t len) const {
    return off > data.size() || len > data.size() - off;
  }
  template <class T>
  bool read(std::uint64_t off, T& out) const {
    if (beyond(off, sizeof(T))) return false;
    std::memcpy(&out, data.data() + off, sizeof(T));
    return true;
  }
  // A NUL-terminated string inside [table, table + table_size).
  bool string_at(std::uint64_t table, std::uint64_t table_size, std::uint64_t index,
                 std::string& out) const {
    if (beyond(table, table_size) || index >= table_size) return false;
    const char* begin = data.data() + table + index;
    const void* nul = std::memchr(begin, 0, table_size - index);
    if (!nul) return false;
    out.assign(begin, static_cast<const char*>(nul));
    return true;
  }
};

// Checks that every part the headers promise is in the file (the loader's
// guard against half-written builds).
std::string check_complete(const Bytes& b, const Elf64_Ehdr& eh) {
  if (eh.e_phentsize != sizeof(Elf64_Phdr) ||
      b.beyond(eh.e_phoff, std::uint64_t(eh.e_phnum) * sizeof(Elf64_Phdr)))
    return "is truncated (its program headers run past the end of the file)";
  if (eh.e_shnum && b.beyond(eh.e_shoff, std::uint64_t(eh.e_shnum) * eh.e_shentsize))
    return "is truncated (its section headers run past the end of the file)";
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    b.read(eh.e_phoff + i * sizeof ph, ph);
    if (ph.p_type == PT_LOAD && b.beyond(ph.p_offset, ph.p_filesz))
      return "is truncated (a loadable segment runs past the end of the file: still being "
             "written?)";
  }
  return "";
}

// Reads one symbol table section (.dynsym or .symtab) with its string table.
std::string read_symbols(const Bytes& b, const Elf64_Ehdr& eh, const Elf64_Shdr& sh,
                         std::vector<ElfSymbol>& out) {
  Elf64_Shdr strtab{};
  if (sh.sh_entsize != sizeof(Elf64_Sym) || sh.sh_link >= eh.e_shnum ||
      !b.read(eh.e_shoff + std::uint64_t(sh.sh_link) * eh.e_shentsize, strtab) ||
      b.beyond(sh.sh_offset, sh.sh_size))
    return "has a malformed symbol table";
  for (std::uint64_t i = 1; i < sh.sh_size / sizeof(Elf64_Sym); ++i) {
    Elf64_Sym s{};
    b.read(sh.sh_offset + i * sizeof s, s);
    ElfSymbol sym;
    if (!b.string_at(strtab.sh_offset, strtab.sh_size, s.st_name, sym.name))
      return "has a malformed symbol name table";
    sym.bind = ELF64_ST_BIND(s.st_info);
    sym.type = ELF64_ST_TYPE(s.st_info);
    sym.defined = s.st_shndx != SHN_UNDEF;
    out.push_back(std::move(sym));
  }
  return "";
}

std::string read_dynamic(const Bytes& b, const Elf64_Ehdr& eh, const Elf64_Shdr& sh,
                         ElfImage& img) {
  Elf64_Shdr strtab{};
  if (sh.sh_link >= eh.e_shnum ||
      !b.read(eh.e_shoff + std::uint64_t(sh.sh_link) * eh.e_shentsize, strtab) ||
      b.beyond(sh.sh_offset, sh.sh_size))
    return "has a malformed dynamic section";
  std::string rpath;
  for (std::uint64_t off = 0; off + sizeof(Elf64_Dyn) <= sh.sh_size; off += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d{};
    b.read(sh.sh_offset + off, d);
    if (d.d_tag == DT_NULL) break;
    std::string s;
    if (d.d_tag != DT_NEEDED && d.d_tag != DT_RUNPATH && d.d_tag != DT_RPATH) continue;
    if (!b.string_at(strtab.sh_offset, strtab.sh_size, d.d_un.d_val, s))
      return "has a malformed dynamic string table";
    if (d.d_tag == DT_NEEDED)
      img.needed.push_back(s);
    else if (d.d_tag == DT_RUNPATH)
      img.runpath = s;
    else
      rpath = s;
  }
  if (img.runpath.empty()) img.runpath = rpath;
  return "";
}

}  // namespace

ElfImage read_elf(const std::filesystem::path& file) {
  ElfImage img;
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) {
    img.problem = "cannot be read";
    return img;
  }
  img.size = static_cast<std::uint64_t>(in.tellg());
  if (img.size > max_image_bytes) {
    img.problem = "is too large for a plugin (" + std::to_string(img.size) + " bytes)";
    return img;
  }
  Bytes b;
  b.data.resize(img.size);
  in.seekg(0);
  if (!in.read(b.data.data(), static_cast<std::streamsize>(img.size))) {
    img.problem = "cannot be read";
    return img;
  }
  Elf64_Ehdr eh{};
  if (!b.read(0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    img.problem = "is not an ELF file (" + std::to_string(img.size) + " bytes)";
    // A linker truncates its output first and writes the header last.
    img.incomplete =
        img.size == 0 ||
        std::all_of(b.data.begin(), b.data.begin() + std::min<std::size_t>(b.data.size(), SELFMAG),
                    [](char c) { return c == 0; });
    return img;
  }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) {
    img.problem = "is not a 64-bit ELF file";
    return img;
  }
  img.type = eh.e_type;
  img.machine = eh.e_machine;
  if (img.problem = check_complete(b, eh); !img.problem.empty()) {
    img.incomplete = true;  // every check_complete problem is "past the end"
    return img;
  }
  if (eh.e_shnum && eh.e_shentsize != sizeof(Elf64_Shdr)) {
    img.table_problem = "has section headers of an unknown size";
    return img;
  }
  for (unsigned i = 0; i < eh.e_shnum && img.table_problem.empty(); ++i) {
    Elf64_Shdr sh{};
    b.read(eh.e_shoff + std::uint64_t(i) * sizeof sh, sh);
    if (sh.sh_type == SHT_DYNSYM) {
      img.table_problem = read_symbols(b, eh, sh, img.dynamic_symbols);
    } else if (sh.sh_type == SHT_SYMTAB) {
      std::vector<ElfSymbol> all;
      img.table_problem = read_symbols(b, eh, sh, all);
      for (auto& s : all)
        if (s.bind == STB_GNU_UNIQUE) img.unique_symbols.push_back(std::move(s));
    } else if (sh.sh_type == SHT_DYNAMIC) {
      img.table_problem = read_dynamic(b, eh, sh, img);
    }
  }
  // .symtab may be stripped; .dynsym always says what the loader sees.
  for (const auto& s : img.dynamic_symbols) {
    if (s.bind != STB_GNU_UNIQUE) continue;
    bool seen = false;
    for (const auto& u : img.unique_symbols) seen = seen || u.name == s.name;
    if (!seen) img.unique_symbols.push_back(s);
  }
  return img;
}

}  // namespace toolgate::detail

// elf_file.hpp -- read a plugin's ELF image without loading it.
//
// The loader uses the completeness check before dlopen (a half-written
// file maps fine but faults when touched); the build check
// (plugin_build_check.hpp, shared by the loader and `toolgate inspect`)
// uses the symbol tables to find what would keep a plugin from unloading.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace toolgate::detail {

struct ElfSymbol {
  std::string name;
  unsigned char bind = 0;  // STB_LOCAL, STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE
  unsigned char type = 0;  // STT_FUNC, STT_OBJECT, ...
  bool defined = false;    // st_shndx != SHN_UNDEF
};

struct ElfImage {
  // Empty when the file is a complete 64-bit ELF file; otherwise what is
  // wrong ("is not an ELF file (12 bytes)", "is truncated (...)").
  std::string problem;
  // The problem looks like a writer that has not finished (an empty file,
  // no ELF header yet, headers or segments past the end): hot reload waits
  // for such a file instead of reporting it at once.
  bool incomplete = false;
  // Empty when the symbol and dynamic tables read cleanly; else what is
  // malformed (only inspect cares: dlopen judges these itself).
  std::string table_problem;
  std::uint64_t size = 0;
  std::uint16_t type = 0;                  // ET_DYN for a shared object
  std::uint16_t machine = 0;               // EM_X86_64, EM_AARCH64, ...
  std::vector<ElfSymbol> dynamic_symbols;  // .dynsym, without the null entry
  std::vector<ElfSymbol> unique_symbols;   // STB_GNU_UNIQUE in .dynsym or .symtab
  std::vector<std::string> needed;         // DT_NEEDED, in order
  std::string runpath;                     // DT_RUNPATH, else DT_RPATH
};

// Reads and checks the whole file.  Tables are only read when the file is
// complete.
ElfImage read_elf(const std::filesystem::path& file);

}  // namespace toolgate::detail

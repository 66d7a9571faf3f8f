/* Looks a symbol up in an ELF64 file's symbol tables (elfsym.h). */
#include "elfsym.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether a symbol table section `sh` (its strings in section sh_link)
 * holds `name`; every offset is checked against the file's size. */
static int table_has(const unsigned char *m, size_t size, const Elf64_Ehdr *eh,
                     const Elf64_Shdr *sh, const char *name) {
  if (sh->sh_link >= eh->e_shnum || sh->sh_entsize != sizeof(Elf64_Sym) ||
      sh->sh_offset > size || sh->sh_size > size - sh->sh_offset)
    return 0;
  const Elf64_Shdr *str = (const Elf64_Shdr *)(m + eh->e_shoff) + sh->sh_link;
  if (str->sh_offset > size || str->sh_size > size - str->sh_offset)
    return 0;
  const char *strs = (const char *)m + str->sh_offset;
  size_t len = strlen(name), n = sh->sh_size / sizeof(Elf64_Sym);
  const Elf64_Sym *sym = (const Elf64_Sym *)(m + sh->sh_offset);
  for (size_t i = 0; i < n; i++) {
    size_t at = sym[i].st_name;
    if (at < str->sh_size && str->sh_size - at > len &&
        memcmp(strs + at, name, len + 1) == 0)
      return 1;
  }
  return 0;
}

static int mapped_has(const unsigned char *m, size_t size, const char *name) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
  if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
      (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > size - eh->e_shoff)
    return -1;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(m + eh->e_shoff);
  for (int i = 0; i < eh->e_shnum; i++)
    if ((sh[i].sh_type == SHT_DYNSYM || sh[i].sh_type == SHT_SYMTAB) &&
        table_has(m, size, eh, &sh[i], name))
      return 1;
  return 0;
}

int hcc_elf_has_symbol(const char *path, const char *name) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0)
    return -1;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
    close(fd);
    return -1;
  }
  void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED)
    return -1;
  int rc = mapped_has(m, (size_t)st.st_size, name);
  munmap(m, (size_t)st.st_size);
  return rc;
}

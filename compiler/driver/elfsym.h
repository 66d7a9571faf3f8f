/* Whether an executable was built by hcc: its symbol tables name
 * __hcrt_main, the entry the pass gives the program's main. */
#ifndef HCC_ELFSYM_H
#define HCC_ELFSYM_H

/* 1 when the ELF file at `path` defines or imports the symbol `name` (in
 * .dynsym or .symtab), 0 when it is an ELF file without it, -1 when it is
 * not an ELF file we can read (a script, a 32-bit binary, no access). */
int hcc_elf_has_symbol(const char *path, const char *name);

#endif

/* The exec family's two steps (exec.c, script.c): an ELF program by
   path, and a script by its "#!" line (or, with shell, by /bin/sh).
   Each returns only on failure: -1 with errno. */
int __exec_elf(const char *path, char *const argv[], char *const envp[]);
int __exec_script(const char *path, char *const argv[], char *const envp[], int shell);

"""The process environment and large argument lists (kernel/args.c,
kernel/space.c's initial stack; ulib/libc/environ.c, exec.c,
pathsearch.c, spawn.c), with progs/posix/envx.c on a disk as /bin/envx
beside the files of the PATH cases: a boot program's environment and
setenv/unsetenv/putenv/clearenv by their rules; the environment through
fork, execve, execle, execv, execvp, posix_spawn and posix_spawnp; the
PATH search by glibc's rules with a same-named program in two
directories; an argv of 100 KiB arriving intact, the limit exactly and
one byte past it (E2BIG), bad pointers in argv and envp (EFAULT), each
refusal leaving the caller running. Every package at -smp 1 and 2."""
import subprocess

import pytest
from harness import BUILD
from helpers import done, only, MKE2FS, needs_e2fsprogs, pkg_cases

pytestmark = needs_e2fsprogs
ENOENT, ENOEXEC, EACCES, EFAULT, E2BIG = 2, 8, 13, 14, 7
ARG_MAX = 128 * 1024


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    d = tmp_path_factory.mktemp("environ")
    root = d / "tree"
    envx = (BUILD / "progs" / "envx").read_bytes()
    hello = (BUILD / "progs" / "hello").read_bytes()
    files = {"bin/envx": (envx, 0o755), "d1/same": (envx, 0o755), "d2/same": (hello, 0o755),
             "d3/same": (envx, 0o644), "d4/same": (b"#!/bin/sh\nexit 1\n" * 100, 0o755),
             "usr/bin/onlyusr": (envx, 0o755)}
    for path, (data, mode) in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
        (root / path).chmod(mode)
    img = d / "fs.img"
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", "1024", "-d", str(root), str(img), "16M"],
                   check=True, capture_output=True)
    return img


def run(boot, image, pkg, smp, mode, words=""):
    r = boot(f"memcheck {words} run=envx,pkg={pkg},{mode}", smp=smp, timeout=180, disk=image)
    return r, only(r, "result", name="envx", mode=mode)


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_boot_environment_and_setenv_rules(boot, image, pkg, smp):
    """A boot program starts with PATH=/bin:/usr/bin, HOME=/ and the
    command line's env= words; setenv's overwrite flag, EINVAL for an
    empty name or one with '=', unsetenv, putenv's string in the vector
    itself (a change to it is seen; without '=' it removes), 300
    variables, clearenv; sysconf(_SC_ARG_MAX) is the kernel's bound."""
    r, res = run(boot, image, pkg, smp, "sem", "env=ENVX_BOOT=a,b env=ENVX_BOOT=hi")
    assert res["boot_env"] == ["PATH=/bin:/usr/bin", "HOME=/", "ENVX_BOOT=hi"], res
    assert res["failures"] == 0 and res["checks"] >= 27, r.tail()
    assert res["arg_max"] == ARG_MAX
    done(r)


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_environment_passes_through_fork_exec_and_spawn(boot, image, pkg, smp):
    """execve and execle give the child the envp passed (a null envp: an
    empty environment), execv and execvp the caller's environ; a forked
    child has the parent's; posix_spawn honours its envp, and
    posix_spawnp searches the caller's PATH, not the envp's."""
    r, res = run(boot, image, pkg, smp, "pass")
    st = res["status"]
    assert st == {"execve": 0, "execve_null": 0, "execle": 0, "execv": 0, "execvp": 0, "fork": 5,
                  "spawn": 0, "spawn_environ": 0, "spawnp": 0}, r.tail()
    e1 = ["ONE=1", "TWO=zwei", "PATH=/nowhere"]
    mine = ["PATH=/bin", "MINE=parent"]
    want = {"execve": e1, "execve_null": [], "execle": e1, "execv": mine, "execvp": mine,
            "spawn": e1, "spawn_environ": mine, "spawnp": e1}
    shown = {e["tag"]: e["env"] for e in r.events("result") if e.get("mode") == "show"}
    assert shown == want, r.tail()
    done(r)


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_path_search_follows_glibc(boot, image, pkg, smp):
    """/d1/same is envx (`envx N` exits 100+N), /d2/same hello (exits N),
    /d3/same not executable, /d4/same a "#!/bin/sh" script (exit 1): the
    first directory of PATH that has the program runs it; EACCES is
    remembered and the search goes on; a script runs by its "#!" line
    (ulib/libc/script.c; before the shell, ENOEXEC ended the search);
    PATH unset is /bin:/usr/bin; a name
    with '/' is not searched; an empty entry is the working directory."""
    r, res = run(boot, image, pkg, smp, "path")
    assert res["status"] == {
        "d1_d2": 101, "d2_d1": 2, "nodir_d2": 3, "eacces_then_d1": 104,
        "eacces_only": 200 + EACCES, "enoent": 200 + ENOENT, "script_first": 1,
        "unset_bin": 108, "unset_usr_bin": 109, "set_no_usr_bin": 200 + ENOENT,
        "slash_not_searched": 111, "empty_entry_is_cwd": 112, "empty_name": 200 + ENOENT,
        "spawnp_d2_d1": 14, "spawnp_eacces_then_d1": 115, "spawnp_eacces_only": 200 + EACCES,
    }, r.tail()
    done(r)


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_large_argv_limits_and_bad_pointers(boot, image, pkg, smp):
    """100 words of 1,000 bytes and a 20,000-byte variable arrive intact
    through execve and posix_spawn; exactly ARG_MAX bytes (strings and
    8 bytes a pointer) runs, one byte more is E2BIG, by argv, by the
    environment or by word count; a bad pointer in argv or envp, or a bad
    envp, is EFAULT (raw SYS_spawn: -EFAULT; posix_spawn's child: 127);
    the caller runs on after each, and memory comes back (memcheck)."""
    r, res = run(boot, image, pkg, smp, "big")
    assert res["arg_max"] == ARG_MAX
    assert res["execve_100k"] == 0 and res["spawn_100k"] == 0, r.tail()
    assert res["at_limit"] == 0 and res["over_limit"] == E2BIG, res
    assert res["spawn_over_limit"] == 127 and res["env_over_limit"] == E2BIG, res
    assert res["too_many_words"] == E2BIG and res["too_many_env"] == E2BIG, res
    assert res["bad_argv_word"] == EFAULT and res["bad_envp_word"] == EFAULT, res
    assert res["bad_envp"] == EFAULT and res["kernel_envp"] == EFAULT, res
    assert res["spawn_bad_envp"] == -EFAULT and res["spawn_unmapped_envp"] == -EFAULT, res
    assert res["posix_spawn_bad_envp"] == 127 and res["alive"] == 1, res
    done(r)

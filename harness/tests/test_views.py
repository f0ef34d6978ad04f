"""Isolated views (kernel/view.c, SYS_view_*: docs/abi.md): a VP's
private window on ranges of its space with twin/diff commit, on bare VPs
(progs/tests/viewtest.c). memcheck: every charge matches what a space
held at its end, and no view outlives its space."""
import pytest
from helpers import done, only, result

EINVAL, EBUSY = -22, -16


def audited(r):
    """`viewtest audit MODE` ran MODE as a child space that ended with
    status 0, and INFO_MEM_AVAIL came back exactly after it."""
    res = result(r, "viewtest_audit")
    assert res["waited"] == 1 and res["status"] == 0 and res["avail_lost"] == 0, res
    done(r, 0)


@pytest.mark.parametrize("smp", [1, 2])
def test_views_isolate_until_commit_and_merge_in_commit_order(boot, smp):
    """Neither VP sees the other's uncommitted stores (in a view or out of
    one), nor does the space; after both commit both see the merged bytes
    (0x55b12211: bytes of each); the byte both wrote is the last
    committer's, in either order; a kernel copy into a view is the view's
    and a discard drops it; a VP that ends in its view loses its
    uncommitted pages, and every page comes back."""
    r = boot("memcheck run=viewtest,audit,iso", smp=smp, timeout=120)
    res = result(r, "viewtest_iso")
    assert res["enter"] == 0 and res["enter1"] == 0, res
    assert res["copied_len"] == 8192 and res["dropped"] == 3 and res["after_discard"] == 0, res
    assert res["vp1_outside"] == 0 and res["vp1_inside"] == 0 and res["vp0_saw_vp1"] == 0, res
    assert res["vp0_after_own_commit"] == 0 and res["vp1_private_before_commit"] == 0, res
    assert res["commit0"] == 2 and res["commit1"] == 2, res
    assert res["vp1_read_page"] == 0x33, res          # a page it only read: the space's frame
    merged = 0x11 | 0x22 << 8 | 0xb1 << 16 | 0x55 << 24
    assert res["vp1_merged"] == merged and res["vp0_merged"] == merged, res
    assert res["space"] == merged and res["lost"] == 0, res
    assert res["round2_vp1_commit"] == 1 and res["round2_vp0_commit"] == 1, res
    assert res["round2_byte"] == 0xa2, res             # VP 0 committed last
    assert res["leave"] == 0 and res["viewpages_end"] == 0, res
    audited(r)


def test_view_calls_refuse_bad_input(boot):
    """No view: commit, discard, leave -EINVAL; misaligned, empty, low,
    kernel, past the top, wrapping ranges -EINVAL; the VP pages and a
    segment -EBUSY; too long, overlapping and one range too many -EINVAL;
    fork inside a view -EBUSY. Memory back exactly."""
    r = boot("memcheck run=viewtest,hostile", smp=2, timeout=120)
    res = result(r, "viewtest_hostile")
    want = [EINVAL] * 10 + [EBUSY, EBUSY, EINVAL, 0, EINVAL, EINVAL, EINVAL, EBUSY, 1, 0, 0]
    assert res["errs"] == want, res
    assert res["viewpages_one"] == 5 and res["more"] == 7, res   # top, PDPT, PD, PT, twin index
    assert res["space_byte"] == 1 and res["avail_lost"] == 0, res
    done(r, 0)


@pytest.mark.parametrize("smp", [1, 2])
def test_view_commit_after_fork_breaks_copy_on_write(boot, smp):
    """VP 1 holds and dirties pages of its view; VP 0 forks a child that
    sees none of VP 1's stores and overwrites the region; VP 1's commit
    meets copy-on-write entries and lands in the parent only."""
    r = boot("memcheck run=viewtest,audit,fork", smp=smp, timeout=120)
    res = result(r, "viewtest_fork")
    assert res["enter"] == 0 and res["held"] == 3 and res["waited"] == 1, res
    assert res["child_status"] == 0 and res["commit"] == 2, res
    assert res["vp1_sees"] == 0x5b5a and res["space_sees"] == 0x5b5a, res
    assert res["leave"] == 0 and res["viewpages_end"] == 0, res
    audited(r)


@pytest.mark.parametrize("smp,jitter", [(1, ""), (2, ""), (4, "jitter ")])
def test_view_commits_race_forks_and_discards(boot, smp, jitter):
    """Three VPs in views commit their own byte of 16 shared pages 150
    times each and read pages whose frames the space discards meanwhile,
    while VP 0 forks children without pause (the commits meet
    copy-on-write entries): each worker sees its own last commit and never
    another's byte go back, reads only 0 or the value the space wrote,
    the space ends with every byte's last value, and every page comes
    back. (It found SYS_discard making a fork's copy-on-write pages
    read-only: test_fork.py::test_discard_after_fork_keeps_pages_writable.)"""
    r = boot(f"memcheck {jitter}run=viewtest,audit,stress", smp=smp, timeout=300)
    res = result(r, "viewtest_stress")
    assert res["forks"] > 0 and res["discards"] > 0 and res["child_bad"] == 0, res
    assert res["worker_bad"] == 0 and res["scratch_bad"] == 0 and res["final_bad"] == 0, res
    assert res["viewpages_end"] == 0, res
    audited(r)


@pytest.mark.parametrize("smp", [1, 2])
def test_exec_ends_a_view_with_the_old_image(boot, smp):
    """VP 1 spins in its view holding 32 pages and 32 private copies (5
    tables: 101 pages) while VP 0 execs; the new image starts with no
    view (its first range costs the 5 tables of a fresh view, and it ends
    with none) and every page comes back once it ends (the audit)."""
    r = boot("memcheck run=viewtest,audit,exec", smp=smp, timeout=120)
    assert "VP 1's view holds 101 pages" in r.log, r.tail()
    res = result(r, "viewtest_hostile")
    assert res["viewpages_one"] == 5 and res["errs"][13] == 0 and res["errs"][-1] == 0, res
    audited(r)    # (hostile's own figure moves as the old image's frames come back)


def test_view_quota_enomem_then_kill_and_kill_mid_view(boot):
    """With memquota=16 a space that filled its quota gets -ENOMEM from
    view_enter, enters once it frees 16 pages, and is killed with a
    message when its twins pass the quota; a space killed while dirtying
    its view ends too; the kernel lives and every page comes back."""
    r = boot("memcheck memquota=16 run=viewtest,quota", smp=2, timeout=200)
    assert "enter -12 then 0" in r.log, r.tail()
    assert "killed: out of memory" in r.log and "isolated view (copy and twin)" in r.log, r.tail()
    res = result(r, "viewtest_quota")
    assert res["fill_waited"] == 1 and res["fill_status"] == 9, res
    assert res["kill"] == 0 and res["spin_waited"] == 1 and res["spin_status"] == 9, res
    assert res["avail_lost"] == 0, res
    done(r, 0)


@pytest.mark.parametrize("mode,cause,detail", [
    ("rowrite", "page fault", "(write, protection)"),
    ("lateseg", "bad view", "(a shared page in an isolated view)"),
])
def test_view_faults_kill_with_a_message(boot, mode, cause, detail):
    """A write to a read-only page in a view, and a touch of a segment
    mapped into a view's range after it began: the space dies naming the
    address and cause; the kernel does not."""
    r = boot(f"memcheck run=viewtest,{mode}", smp=2, timeout=120)
    assert f"killed: {cause}" in r.log and detail in r.log, r.tail()
    assert r.kind == "done", r.tail()


def test_view_costs_under_icount(boot):
    """Per page, under -icount (guest instructions, not the host's
    speed), in one run: a first read in a view (a hold) costs less than
    a first write (a copy and its twin), an empty commit less than a
    commit of one page, and 256 pages written are 256 committed, twice."""
    r = boot("run=viewtest,cost", smp=1, timeout=120, icount=True)
    res = result(r, "viewtest_cost")
    assert res["sum"] == 256 and res["commits"] == 512, res
    assert res["store_ns"] < res["hold_ns"] < res["hold_to_private_ns"], res
    assert res["hold_ns"] < res["private_ns"], res
    assert res["empty_commit_ns"] < res["commit_ns"], res
    done(r, 0)


def viewracey(boot, mode, smp, nvp=4, pre="", beside=False, icount=False):
    other = " run=viewracey,race" if beside else ""
    r = boot(f"{pre} run=viewracey,{mode},{nvp}{other}".strip(), smp=smp, timeout=180,
             icount=icount)
    done(r, 0)
    return only(r, "result", name="viewracey", mode=mode)


def test_viewracey_control_differs_without_views(boot):
    """The control: four VPs' racy read-modify-writes on one array with no
    views give at least two signatures in four runs at -smp 2."""
    sigs = {viewracey(boot, "race", 2)["sig"] for _ in range(4)}
    assert len(sigs) >= 2, sigs


def test_viewracey_parallel_phase_is_deterministic(boot):
    """DTHREADS's parallel phase on the kernel's views (progs/tests/
    viewracey.c): every VP runs its round in its view at once, then all
    commit in a fixed order after a fence. The array's signature, the
    transactions and the pages committed are the same at -smp 1, 2 and 4,
    under -icount, with the kernel's jitter and with a racing space
    beside it; with 8 VPs too."""
    seen = {}
    for smp, pre, beside, icount in [(1, "", False, False), (2, "", False, False),
                                     (2, "", False, True), (4, "jitter=2", False, False),
                                     (4, "jitter=3", True, False)]:
        res = viewracey(boot, "views", smp, pre=pre, beside=beside, icount=icount)
        assert res["failed"] == 0 and res["viewpages_end"] == 0 and res["tx"] == 4 * 40, res
        seen[(smp, pre, beside, icount)] = (res["sig"], res["commit_pages"])
    assert len(set(seen.values())) == 1, seen
    eight = {viewracey(boot, "views", smp, nvp=8)["sig"] for smp in (2, 4)}
    assert len(eight) == 1, eight


@pytest.mark.parametrize("smp", [1, 2])
def test_syscalls_see_the_callers_view(boot, smp):
    """The kernel reads and writes a VP's memory through its view, as the
    VP's loads do (progs/tests/viewsys.c), for VP 0 and for a VP made in
    the slot a VP left in its view: futex_wait on a word written only in
    the view blocks on the view's value (-ETIMEDOUT) and is -EAGAIN on the
    space's; a pipe write sends the view's bytes, a pipe read lands in the
    view (a discard of the 3 private pages brings the space's back, and
    futex_wait agrees); a waiter on its private value is woken through the
    space's frame's key. The reused slot (index 1 again) sees the space's
    word, not the ended view's, and nothing of that view is left."""
    r = boot("memcheck run=viewsys", smp=smp, timeout=120)
    res = result(r, "viewsys")
    EAGAIN, ETIMEDOUT = -11, -110
    want = [0, ETIMEDOUT, EAGAIN, 8, 8, 1, 8, 1, 3, 1, EAGAIN, ETIMEDOUT]
    assert res["vp0"] == want and res["reused"] == want, res
    assert res["create1"] == res["create2"] == res["index1"] == res["index2"] == 1, res
    assert res["pages_after_exit"] == 0 and res["viewpages_end"] == 0, res
    old = 0x01d
    assert res["reused_word"] == old and res["reused_after"] == old, res
    assert res["reused_stale_wait"] == EAGAIN, res
    assert res["woken"] == 1 and res["waiter"] == 0 and res["space_word"] == old, res
    # 300 VPs, each in the slot the last left in its view: each saw the
    # space's word, and vp_create returned a slot's index
    assert res["churned"] == 300 and res["churn_bad"] == 0, res
    assert res["churn_bad_index"] == 0, res
    done(r, 0)


@pytest.mark.parametrize("smp", [1, 2])
def test_view_forgets_tables_an_unmap_frees(boot, smp):
    """A VP in a view maps, stores to and unmaps a page beside its range,
    in another GiB and in another 512 GiB, 40 times, while fresh maps
    take the pages just freed: the kernel frees the tables each unmap
    empties (kernel/vm.c vm_prune) and the view's copies of their entries
    go with them (view_unlink). Killed at the second round's first page
    before the copies went (the view still named the freed PT, zeroed
    into another map's frame). Memory back exactly."""
    r = boot("memcheck run=viewtest,audit,prune", smp=smp, timeout=120)
    res = result(r, "viewtest_prune")
    assert res["ok"] == res["want"] == 400 and res["commit"] >= 0 and res["leave"] == 0, res
    audited(r)

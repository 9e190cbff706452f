/* dv1394 (examples/dv1394.cw) with the manifest's known fix applied by hand to
 * `paces export --promela`'s output: 3 moved below the no-reorder block NR, I above the page
 * fault PF, an atomic section [1; NR] in mmap_thread and [E; H] in the page fault. Both
 * sections hold a wait that is not their first step (6 and F), which the Promela export
 * refuses, so the fix is written in Promela, whose atomic sequence loses its atomicity while
 * one of its statements blocks. Under that semantics the ABBA is still there: ioctl takes
 * mtx (A), mmap enters its section, takes sem and blocks at 6, and ioctl's deadlock detector
 * E fails. The
 * fix works only where a blocking statement inside an atomic block cuts the path instead
 * (CBMC, which ConRepair used). Checked by `dv1394_known_fix_still_fails_in_promela` in
 * `tests/spin.rs`. */

int g_mtx = 0;
int g_want_mtx = 0;
int g_sem = 1;
int g_want_sem = 0;
int g_state = 0;
int g_vm_consistent = 1;

active proctype t_mmap_thread() {
  atomic {
    atomic {
      (g_sem == (1));
      g_sem = (0);
    };
    L3_2: assert((g_vm_consistent == (1)));
    L6_4: assert((((g_want_sem == (0)) || (g_mtx == (0))) || (g_sem != (0))));
    L7_5: g_want_mtx = (1);
    atomic {
      (g_mtx == (0));
      g_mtx = (1);
      g_want_mtx = (0);
    };
    L12_7: assert((g_state != (3)));
    L13_8: g_state = (3);
    L14_9: g_state = (1);
    L15_10: g_state = (3);
    L16_11: g_state = (2);
    L17_12: g_mtx = (0);
  };
  L4_3: g_vm_consistent = (0);
  L18_13: g_vm_consistent = (1);
  L19_14: g_sem = (1);
}

active proctype t_ioctl_thread() {
  int l_old_state = 0;
  L20_A: atomic {
    (g_mtx == (0));
    g_mtx = (1);
  };
  L23_B: assert((g_state != (3)));
  L24_C: l_old_state = g_state;
  L25_D: g_state = (3);
  L36_I: g_state = l_old_state;
  L26_PF: if
  :: atomic {
    assert((((g_want_mtx == (0)) || (g_sem == (1))) || (g_mtx == (0))));
    L29_Ew: g_want_sem = (2);
    atomic {
      (g_sem == (1));
      g_sem = (0);
      g_want_sem = (0);
    };
    L34_G: assert((g_vm_consistent != (0)));
    L35_H: g_sem = (1);
    }
  :: skip
  fi;
  L37_J: g_mtx = (0);
}

active proctype t_rw_thread() {
  L38_i: atomic {
    (g_mtx == (0));
    L40_rw_thread_2: g_mtx = (1);
  };
  L41_ii: assert((g_state != (3)));
  L42_iii: g_mtx = (0);
}


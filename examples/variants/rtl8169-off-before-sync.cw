// Variant of examples/rtl8169.cw (PACES's own test data, not from the paper): the model with the
// known fix applied (477 above 476, 605 above 604, 512 above 510, 549/550 in one atomic block,
// 363 above 353; correct here), then ONE bug injected:
// dev_down switches the device off (615) before it waits for a running interrupt handler (613), so
// the handler can touch a device that is off (597).
// Expected repair: move 613 back above 615.
// Every other line is as in rtl8169.cw, whose header explains the model and its labels.

var registered = 0, netif_running = 0, irq_enabled = 0, napi_enabled = 0, napi_scheduled = 0,
    reset_task_ready = 0, sysfs_registered = 0, dev_lock = 0, sysfs_lock = 0, rtnl_lock = 0,
    want_sysfs = 0, want_dev = 0, irq_sem = 1, napi_sem = 1, IntrStatus = 0, IntrMask = 0,
    intr_mask = 0, dev_on = 0, hw_start = 0, probe1 = 0, rc1 = 0, open1 = 0, rc2 = 0, status1 = 0,
    work_done = 0;

// globals standing in for locals / return values used by a single thread
// ---------------------------------------------------------------- environment (OS) model
proc open {
  275: open1 := 0;
  277: lock(rtnl_lock);
  278: if (registered != 0) {
    279: drv_open();
    280: if (open1 == 0) {
      281: netif_running := 1;
    }
  }
  284: unlock(rtnl_lock);
}

proc close {
  290: lock(rtnl_lock);
  291: if (netif_running != 0) {
    292: netif_running := 0;
    293: drv_close();
  }
  295: unlock(rtnl_lock);
}

proc register_netdev {
  387: if (*) {
    388: registered := 1;
    389: rc1 := 0;
  } else {
    391: rc1 := -1;
  }
}

proc unregister_netdev {
  398: registered := 0;
  399: await(netif_running == 0);
}

proc request_irq {
  405: if (*) {
    406: irq_enabled := 1;
    407: rc2 := 0;
  } else {
    409: rc2 := -1;
  }
}

proc free_irq {
  416: irq_enabled := 0;
}

proc napi_enable {
  421: napi_enabled := 1;
}

proc napi_disable {
  426: napi_enabled := 0;
  427: down(napi_sem);
}

proc napi_schedule {
  432: atomic {
    433: if (napi_enabled != 0) {
      434: napi_scheduled := 1;
    }
  }
}

proc napi_complete {
  440: napi_scheduled := 0;
}

proc synchronize_irq {
  446: down(irq_sem);
  447: up(irq_sem);
}

proc device_create_bin_file {
  452: sysfs_registered := 1;
}

proc device_remove_bin_file {
  457: sysfs_registered := 0;
}

// ---------------------------------------------------------------- driver code
proc drv_probe {
  474: create_sysfs_files();
  477: hw_start := 1;
  476: register_netdev();
  479: if (rc1 < 0) {
    480: probe1 := rc1;
  } else {
    482: probe1 := 0;
  }
}

proc drv_open {
  492: assert(hw_start != 0);
  494: IntrMask := 0;
  496: request_irq();
  498: if (rc2 < 0) {
    499: open1 := rc2;
  } else {
    501: napi_enable();
    502: dev_up();
    503: open1 := 0;
  }
}

proc drv_close {
  512: free_irq();
  510: dev_down();
  511: napi_disable();
}

proc drv_disconnect {
  517: unregister_netdev();
  518: remove_sysfs_files();
}

proc drv_irq {
  local handled2 = 0;
  524: handled2 := 0;
  526: status1 := IntrStatus;
  527: while (*) {
    528: if (intr_mask != 0) {
      529: write_IntrMask_0();
      530: intr_mask := 0;
      531: napi_schedule();
      532: handled2 := 1;
    }
    534: write_IntrStatus();
    535: status1 := IntrStatus;
  }
  537: assume(status1 == 0);
}

proc drv_napi_poll {
  545: handle_interrupt();
  547: if (work_done < 100) {
    548: napi_complete();
    549: atomic {
      549.1: intr_mask := 255;
      549.2: IntrMask := 255;
    }
  }
}

proc drv_xmit_timeout {
  560: reset_task_ready := 1;
}

proc drv_reset_task {
  565: lock(rtnl_lock);
  568: if (netif_running != 0) {
    571: napi_disable();
    574: dev_down();
    575: dev_up();
    577: napi_enable();
    578: unlock(rtnl_lock);
  }
}

proc drv_sysfs_read {
  585: skip;
}

proc write_IntrMask_0 {
  wm0_591: assert(dev_on != 0);
  wm0_592: IntrMask := 0;
}

proc write_IntrMask_1 {
  wm1_591: assert(dev_on != 0);
  wm1_592: IntrMask := 1;
}

proc write_IntrStatus {
  597: assert(dev_on != 0);
  598: IntrStatus := IntrStatus * (1 - status1);
}

proc dev_up {
  603: dev_on := 1;
  605: intr_mask := 1;
  604: write_IntrMask_1();
}

proc dev_down {
  611: write_IntrMask_0();
  615: dev_on := 0;
  613: synchronize_irq();
}

proc handle_interrupt {
  622: if (*) {
    wd_low: work_done := 0;
  } else {
    wd_high: work_done := 100;
  }
  623: IntrStatus := 0;
}

proc create_sysfs_files {
  629: lock(sysfs_lock);
  630: device_create_bin_file();
  631: unlock(sysfs_lock);
}

proc remove_sysfs_files {
  637: noreorder {
    638: want_sysfs := 5;
    639: atomic {
      await(sysfs_lock == 0);
      sysfs_lock := 5;
      want_sysfs := 0;
    }
  }
  646: device_remove_bin_file();
  647: unlock(sysfs_lock);
}

// ---------------------------------------------------------------- threads
thread pci_thread {
  237: drv_probe();
  238: if (probe1 == 0) {
    240: noreorder {
      241: want_dev := 5;
      242: atomic {
        await(dev_lock == 0);
        dev_lock := 5;
        want_dev := 0;
      }
    }
    249: drv_disconnect();
    250: unlock(dev_lock);
  }
}

thread network_thread {
  259: while (*) {
    260: open();
    261: if (open1 == 0) {
      263: if (*) {
        266: drv_xmit_timeout();
      }
      268: close();
    }
  }
}

thread irq_thread {
  303: while (*) {
    305: down(irq_sem);
    306: if (irq_enabled != 0 && IntrStatus != 0 && IntrMask != 0) {
      307: assert(intr_mask != 0);
      308: drv_irq();
    }
    310: up(irq_sem);
  }
}

thread dev_thread {
  316: while (*) {
    317: IntrStatus := 1;
  }
}

thread napi_thread {
  327: while (*) {
    328: down(napi_sem);
    329: if (napi_scheduled != 0) {
      330: drv_napi_poll();
    }
    332: up(napi_sem);
  }
}

thread workqueue_thread {
  339: while (*) {
    340: if (reset_task_ready != 0) {
      341: drv_reset_task();
      342: reset_task_ready := 0;
    }
  }
}

thread sysfs_thread {
  351: while (*) {
    363: noreorder {
      364: want_dev := 6;
      365: atomic {
        await(dev_lock == 0);
        dev_lock := 6;
        want_dev := 0;
      }
    }
    353: noreorder {
      354: want_sysfs := 6;
      355: atomic {
        await(sysfs_lock == 0);
        sysfs_lock := 6;
        want_sysfs := 0;
      }
    }
    372: if (sysfs_registered != 0) {
      374: drv_sysfs_read();
    }
    376: unlock(dev_lock);
    377: unlock(sysfs_lock);
  }
}

thread deadlock_thread {
  652: assert(!(dev_lock == want_sysfs && sysfs_lock == want_dev && dev_lock != 0 && sysfs_lock != 0));
}

// Variant of examples/usb-serial.cw (PACES's own test data, not from the paper): the model with
// the developers' fix applied (usb_serial_disconnect's closing block is 178; 183; 184; 185; 190;
// 191; 199; 188; 187; 194; 195, which is correct here), then ONE bug injected:
// a missing section: module exit waits for a zero count (483) and decrements it (484) as two
// steps, so a module reference can be taken in between.
// Expected repair: an atomic section [483; 484].
// Every other line is as in usb-serial.cw, whose header explains the model and its labels.

var fw_tty_registered = 0, fw_tty_initialized = 0, fw_tty_lock = 0, fw_driver_list_consistent = 1,
    fw_idr_consistent = 1, fw_table_lock = 0, fw_serial_bus_lock = 0, drv_usb_registered = 0,
    drv_usb_initialized = 0, drv_registered_with_usb_fw = 0, drv_registered_with_serial_fw = 0,
    drv_id_table = 0, drv_module_ref_cnt = 0, drv_device_id_registered = 0,
    dev_usb_serial_initialized = -1, dev_autopm = 0, dev_disconnected = 0, dev_disc_lock = 0,
    port_dev_registered = 0, port_initialized = 0, port_idr_registered = 0, port_tty_installed = 0,
    port_work = 0, port_work_initialized = 0, port_work_stop = 0, port_tty_registered = 0,
    port_consistent = 1, port_lock = 0, port_write_in_progress = 0, write_urb_state = 0;

// ---------------------------------------------------------------- framework functions
proc usb_serial_init {
  54: fw_tty_initialized := 1;
  55: fw_tty_registered := 1;
}

proc usb_serial_exit {
  61: fw_tty_registered := 0;
  64: await(port_tty_installed == 0);
  65: fw_tty_initialized := 0;
}

proc lock_table {
  69: lock(fw_table_lock);
}

proc unlock_table {
  76: unlock(fw_table_lock);
}

proc lock_serial_bus {
  80: lock(fw_serial_bus_lock);
}

proc unlock_serial_bus {
  87: fw_serial_bus_lock := fw_serial_bus_lock - 1;
}

proc lock_tty {
  91: lock(fw_tty_lock);
}

proc unlock_tty {
  98: unlock(fw_tty_lock);
}

proc lock_port {
  102: lock(port_lock);
}

proc unlock_port {
  109: unlock(port_lock);
}

proc usb_serial_probe {
  113: lock_table();
  115: assert(fw_driver_list_consistent != 0);
  116: if (drv_registered_with_usb_fw == 0) {
    117: unlock_table();
  } else {
    121: try_module_get();
    123: if (drv_module_ref_cnt <= 0) {
      124: unlock_table();
    } else {
      128: assert(drv_usb_initialized != 0);
      129: assert(drv_usb_registered != 0);
      131: unlock_table();
      133: dev_usb_serial_initialized := 1;
      143: dev_disconnected := 1;
      // allocate_minors()
      147: lock_table();
      148: assert(fw_idr_consistent != 0);
      149: fw_idr_consistent := 0;
      150: port_idr_registered := 1;
      151: fw_idr_consistent := 1;
      152: unlock_table();
      155: port_work_initialized := 1;
      156: port_initialized := 1;
      157: port_dev_registered := 1;
      158: dev_disconnected := 0;
    }
  }
}

proc usb_serial_disconnect {
  166: lock_disc();
  168: assert(dev_usb_serial_initialized >= 0);
  169: dev_disconnected := 1;
  170: unlock_disc();
  172: assert(port_initialized != 0);
  174: if (port_tty_installed != 0) {
    // serial_close, under the tty lock taken by this thread (USB_BUS_THREAD = 2)
    178: atomic {
      await(fw_tty_lock == 0);
      fw_tty_lock := 2;
    }
    183: assert(drv_module_ref_cnt > 0);
    184: assert(dev_usb_serial_initialized != 0);
    185: assert(port_initialized != 0);
    190: await(port_write_in_progress == 0);
    191: port_tty_installed := 0;
    199: unlock_tty();
    188: port_work_initialized := 0;
    187: cancel_work_sync();
    194: drv_module_ref_cnt := drv_module_ref_cnt - 1;
    195: usb_serial_put();
  }
  213: usb_serial_put();
}

proc cancel_work_sync {
  217: port_work_stop := 1;
  219: await(port_work == 0);
}

proc usb_serial_device_probe {
  225: assert(port_initialized != 0);
  226: assert(dev_usb_serial_initialized >= 0);
  227: dev_autopm := dev_autopm + 1;
  231: port_tty_registered := 1;
  233: dev_autopm := dev_autopm - 1;
}

proc usb_serial_device_remove {
  237: assert(port_initialized != 0);
  238: assert(dev_usb_serial_initialized >= 0);
  241: dev_autopm := dev_autopm + 1;
  243: port_tty_registered := 0;
  247: dev_autopm := dev_autopm - 1;
}

proc usb_serial_put {
  local old = 0;
  253: assert(dev_usb_serial_initialized > 0);
  255: atomic {
    old := dev_usb_serial_initialized;
    dev_usb_serial_initialized := dev_usb_serial_initialized - 1;
  }
  260: if (old == 1) {
    // release_minors
    262: if (port_idr_registered != 0) {
      264: lock_table();
      265: assert(fw_idr_consistent != 0);
      266: fw_idr_consistent := 0;
      267: port_idr_registered := 0;
      268: fw_idr_consistent := 1;
      269: unlock_table();
    }
    // the ports are no longer used and can be freed
    275: lock_serial_bus();
    276: port_dev_registered := 0;
    277: unlock_serial_bus();
    278: await(port_tty_registered == 0);
    279: dev_usb_serial_initialized := -1;
    280: port_initialized := 0;
    281: drv_module_ref_cnt := drv_module_ref_cnt - 1;
  }
}

// ---------------------------------------------------------------- driver functions
proc try_module_get {
  290: atomic {
    291: if (drv_module_ref_cnt >= 0) {
      292: drv_module_ref_cnt := drv_module_ref_cnt + 1;
    }
  }
}

proc belkin_init {
  311: drv_usb_initialized := 1;
  312: drv_usb_registered := 1;
  // usb_serial_register()
  316: lock_table();
  317: assert(fw_driver_list_consistent != 0);
  318: fw_driver_list_consistent := 0;
  319: drv_registered_with_usb_fw := 1;
  320: fw_driver_list_consistent := 1;
  322: drv_registered_with_serial_fw := 1;
  323: unlock_table();
  326: drv_id_table := 1;
}

proc belkin_exit {
  330: assert(drv_usb_initialized != 0);
  331: drv_registered_with_usb_fw := 0;
  // usb_serial_deregister()
  335: lock_table();
  337: assert(fw_driver_list_consistent != 0);
  338: fw_driver_list_consistent := 0;
  339: drv_registered_with_usb_fw := 0;
  340: fw_driver_list_consistent := 1;
  342: drv_registered_with_serial_fw := 0;
  343: unlock_table();
  346: drv_usb_registered := 0;
  347: drv_usb_initialized := 0;
}

proc lock_disc {
  378: lock(dev_disc_lock);
}

proc unlock_disc {
  385: unlock(dev_disc_lock);
}

// ---------------------------------------------------------------- per-port driver functions
proc serial_install {
  // port = usb_serial_port_get_by_minor(idx)
  400: lock_table();
  401: if (port_idr_registered == 0) {
    402: unlock_table();
  } else {
    407: lock_disc();
    408: if (dev_disconnected != 0) {
      409: unlock_disc();
      410: unlock_table();
    } else {
      413: assert(port_initialized != 0);
      414: assert(dev_usb_serial_initialized > 0);
      415: dev_usb_serial_initialized := dev_usb_serial_initialized + 1;
      417: unlock_table();
      420: try_module_get();
      421: if (drv_module_ref_cnt <= 0) {
        422: usb_serial_put();
        423: unlock_disc();
      } else {
        427: dev_autopm := dev_autopm + 1;
        428: port_tty_installed := 1;
        429: unlock_disc();
      }
    }
  }
}

proc serial_write_callback {
  465: assert(port_initialized != 0);
  466: lock_port();
  467: assert(port_consistent != 0);
  468: port_consistent := 0;
  469: port_consistent := 1;
  470: unlock_port();
  471: assert(port_work_initialized != 0);
  472: port_work := 1;
}

// ---------------------------------------------------------------- threads
thread fw_module_thread {
  479: usb_serial_init();
  481: belkin_init();
  483: await(drv_module_ref_cnt == 0);
  484: drv_module_ref_cnt := drv_module_ref_cnt - 1;
  488: belkin_exit();
  490: usb_serial_exit();
}

thread usb_bus_thread {
  496: await(drv_usb_registered != 0 || drv_device_id_registered != 0);
  497: usb_serial_probe();
  // hack of the source: do not check probe's result, look at port_dev_registered
  501: if (port_dev_registered != 0) {
    502: usb_serial_disconnect();
  }
}

thread serial_bus_thread {
  532: lock_serial_bus();
  533: await(port_dev_registered != 0);
  534: usb_serial_device_probe();
  535: unlock_serial_bus();
  537: await(port_dev_registered == 0);
  538: lock_serial_bus();
  539: usb_serial_device_remove();
  540: unlock_serial_bus();
}

thread tty_thread {
  544: await(drv_registered_with_serial_fw != 0);
  545: serial_install();
  547: lock_tty();
  548: if (port_tty_installed != 0) {
    549: port_write_in_progress := 1;
    // serial_write(), inlined by the source
    551: assert(port_initialized != 0);
    552: assert(dev_usb_serial_initialized != 0);
    553: assert(port_tty_installed != 0);
    554: lock_port();
    555: assert(port_consistent != 0);
    556: port_consistent := 0;
    557: port_consistent := 1;
    558: unlock_port();
    560: if (write_urb_state == 0) {
      561: write_urb_state := 1;
    }
  }
  564: unlock_tty();
}

thread attribute_thread {
  570: try_module_get();
  572: if (drv_module_ref_cnt > 0) {
    575: await(drv_registered_with_serial_fw != 0);
    576: drv_device_id_registered := 1;
    577: drv_module_ref_cnt := drv_module_ref_cnt - 1;
  }
}

thread usb_cb_thread {
  507: await(write_urb_state == 1 || drv_usb_registered == 0);
  508: if (write_urb_state == 1) {
    509: assert(drv_usb_initialized != 0);
    510: write_urb_state := 0;
    511: serial_write_callback();
  }
}

thread port_work_thread {
  518: await(port_work == 1 || port_work_stop == 1);
  519: assert(fw_tty_lock != 2 || port_work_stop == 0);
  520: lock_tty();
  521: if (port_work != 0) {
    522: assert(port_initialized != 0);
    523: assert(port_tty_installed != 0);
    524: port_write_in_progress := 0;
    525: port_work := 0;
  }
  527: unlock_tty();
}

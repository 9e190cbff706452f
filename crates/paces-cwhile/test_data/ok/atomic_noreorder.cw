// User atomic blocks (waiting only first), nested atomics and noreorder.
var m = 0, a = 0, b = 0;

proc enter {
  await(m == 0);
  m := 1;
}

thread t {
  A1: atomic {
    await(a == 0);
    a := 1;
    b := 2;
  }
  A2: atomic {
    lock(m);
    a := 0;
  }
  A3: atomic {
    enter();
    atomic {
      b := 1;
    }
  }
  N: noreorder {
    a := 2;
    b := 3;
    skip;
  }
  unlock(m);
}

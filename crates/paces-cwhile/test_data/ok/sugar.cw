// Every sugar: if (b), while (b), lock/unlock, down/up.
var m = 0, s = 1, x = 0, y = 0;

thread worker {
  W: while (x < 3) {
    L: lock(m);
    I: if (y == 0) {
      y := 1;
    } else {
      y := y + 1;
    }
    U: unlock(m);
    x := x + 1;
  }
  D: down(s);
  up(s);
}

thread other {
  lock(m);
  assert(y >= 0);
  unlock(m);
}

var x = 0, m = 0;
thread t {
  A: x := 1;
  A: x := 2;
  L: lock(m);
  L.wait: skip;
}

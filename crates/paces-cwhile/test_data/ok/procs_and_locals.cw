// Procedures with locals, called from threads and from each other; declared after use.
var g = 0, done = false;

thread t1 {
  local r = 5, s;
  A: bump();
  B: r := r + g;
  C: assert(r >= 5);
}

thread t2 {
  local r;
  r := -3;
  twice();
}

proc twice {
  bump();
  bump();
}

proc bump {
  local tmp = 0;
  tmp := g;
  g := tmp + 1;
  done := true;
}

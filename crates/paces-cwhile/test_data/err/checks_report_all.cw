// Independent static errors are all reported in one run.
var x = 0;
thread t {
  y := 1;
  assert(z == 0);
  missing();
}
thread t { skip; }

var x = 0;
thread t {
  local r;
  assert(y == 1);
}
thread u {
  x := r;
}

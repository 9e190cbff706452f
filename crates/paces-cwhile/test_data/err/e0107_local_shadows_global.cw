var x = 0;
thread t {
  local x = 1;
  skip;
}

var x = 0, y = 0;
var x = 1;
thread t {
  local r, r;
  skip;
}

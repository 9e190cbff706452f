var x = 0;
thread t {
  counter := x + 1;
}

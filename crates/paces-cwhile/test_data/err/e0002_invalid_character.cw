var x = 0;
thread t {
  x := 1 # 2;
}

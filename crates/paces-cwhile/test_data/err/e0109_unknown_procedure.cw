thread t {
  helper();
  u();
}
thread u { skip; }

var x = 0;
thread t {
  x := ;
  skip;
  assert(x == );
  if x == 1 { skip; }
  x := 2
}
thread u {
  await(x == 1);
}

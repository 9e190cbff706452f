// A typo in the head of a compound statement is one error: parsing resumes after its
// block (and `else` part), so later statements and later errors are still reported.
var x = 0;
thread t {
  if x == 1 {
    x := 2;
  } else {
    x := 3;
  }
  while x < 3 { x := x + 1; }
  assert(x == 3);
}
thread u {
  x := ;
}

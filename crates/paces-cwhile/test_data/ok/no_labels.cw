// No label anywhere: every label is generated.
var x = 0;

proc p {
  x := 1;
  if (*) {
    skip;
  }
}

thread main {
  p();
  while (*) {
    if (x == 1) {
      x := 2;
    } else if (x == 2) {
      x := 3;
    }
  }
  assert(x != 0);
}

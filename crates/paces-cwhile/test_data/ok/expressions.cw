// Precedence, associativity, negative literals, booleans, parentheses.
var a = -1, b = true, c = 9223372036854775807, d = -9223372036854775808;

thread t {
  a := 1 + 2 * 3 - 4 / 2 % 3;
  a := (1 + 2) * 3;
  a := 1 - (2 - 3);
  a := -a - -1;
  a := - -a;
  b := !b || a < 0 && c >= d;
  b := (a == 1) == (c != 2);
  b := !(a <= 0);
  assume(true);
  await(b || !false);
  a := 10 / a;
}

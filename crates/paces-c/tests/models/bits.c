/* Every bitwise operator on integers, with C's precedence, and `&`/`|` in a
   condition, where the dialect reads them as `&&`/`||`; the values are
   computed by hand in the comments. */
int a = 12;   /* 0b1100 */
int b = 10;   /* 0b1010 */
int done;
int x, y, z, s, t, u, v, w, p, c1, c2;

void worker() {
  x = a & b;           /* 0b1000 = 8 */
  y = a | b;           /* 0b1110 = 14 */
  z = a ^ b;           /* 0b0110 = 6 */
  s = (a >> 2) << b;   /* 3 << 10 = 3072 */
  t = -a >> 1;         /* -6: the sign bit is copied */
  u = ~a & 0xff;       /* 0b11110011 = 243 */
  v = a | b & 3;       /* 12 | (10 & 3) = 14 */
  w = 1 << 2 + 1;      /* 1 << 3 = 8 */
  p = a & b == 10;     /* 12 & 1 = 0 */
  if (a & 2) c1 = 1;   /* a condition: a && 2 holds */
  c2 = (a & 2) != 0;   /* an integer: 12 & 2 = 0 */
  done = 1;
}

void checker() {
  assume(done == 1);
  assert(x == 8 & y == 14 & z == 6 & s == 3072 & t == -6);
  assert(u == 243 && v == 14 && w == 8 && p == 0);
  assert(c1 == 1 | c1 == 2);
  assert(c2 == 0);
}

void main() {
  worker();
  checker();
}

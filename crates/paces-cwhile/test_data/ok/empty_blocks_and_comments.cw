/* A block comment
   over two lines. */
var x = 0; // a trailing comment

thread t {
  if (*) { } else { }
  while (*) { }
  atomic { }
  noreorder { }
  q();
  x = 1; // `=` is accepted for `:=`
}

proc q { }

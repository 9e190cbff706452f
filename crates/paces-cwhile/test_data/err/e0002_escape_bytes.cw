// Control characters of the source are escaped in the snippet: a file cannot send
// terminal escapes (here: clear the screen) to the terminal that shows its errors.
var x;
thread t { x := 1 [2J; }

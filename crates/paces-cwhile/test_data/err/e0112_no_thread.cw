var x = 0;
proc p { x := 1; }

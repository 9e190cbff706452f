proc a { b(); }
proc b { c(); }
proc c { a(); }
proc self_ { self_(); }
thread t { a(); }

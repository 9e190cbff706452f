proc f { skip; }
proc f { skip; }
thread t { f(); }

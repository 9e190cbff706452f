thread t {
  local m;
  lock(m);
  unlock(m);
}

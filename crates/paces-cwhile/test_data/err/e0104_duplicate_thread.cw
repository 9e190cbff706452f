thread worker { skip; }
thread worker { skip; }

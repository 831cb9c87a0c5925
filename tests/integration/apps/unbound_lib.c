/* A shared library with a function that calls a symbol no library defines
 * and that nobody calls (test_launch_sim): with lazy binding, the default,
 * a program linked with it runs; with LD_BIND_NOW=1 the loader refuses it. */
void never_defined(void);
int unbound_used(void) { return 42; }
void unbound_unused(void) { never_defined(); }

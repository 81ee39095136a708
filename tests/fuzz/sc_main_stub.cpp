// Debian's libsystemc.so defines main() and calls sc_main(); a libFuzzer target has its own main()
// (from -fsanitize=fuzzer) and never elaborates a design, but the shared library still needs the
// symbol to link. Never called.
extern "C" int sc_main(int, char**) { return 0; }  // declared extern "C" by sysc/kernel/sc_externs.h

// Test submission: a shared object that never says RATCHET_METHOD.
extern "C" int not_the_method() { return 0; }

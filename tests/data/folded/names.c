/* Functions named as perf script shows C++, Go and Java frames (and with
 * the characters stackcollapse-perf.pl tidies away), for foldprobe.py. */
#define F(id, name)                                                   \
	__attribute__((noinline, used)) void id(void) __asm__(name);  \
	void id(void) { __asm__ volatile("nop; nop; nop; nop"); }
F(f1, "\"foo(int)\"")
F(f2, "\"(anonymous namespace)::bar(long)\"")
F(f3, "\"net/http.(*Client).Do\"")
F(f4, "\"Lorg/mozilla/Foo;.call\"")
F(f5, "\"it's\\\"q\"")
F(f6, "\"a;b\"")
F(f7, "plain_fn")
int main(void)
{
	return 0;
}

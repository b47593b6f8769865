// SPDX-License-Identifier: GPL-2.0
/* cflags: -O0 -fno-omit-frame-pointer -g -pthread */
/*
 * The user-stack test's program (test/ustack/): known user stacks that
 * block, call and wake in known functions, built with frame pointers as
 * the README asks of programs whose stacks kstats walks. Each function
 * calls glibc's wrappers, which keep no frame record, so the frame that
 * bcc loses (the wrapper's caller) is the one the test looks for.
 *
 *   ustack_prog calls A B     getppid() A times from site_a(), B times
 *                             from site_b()
 *   ustack_prog pipe N        main -> wait_outer -> wait_inner blocks N
 *                             times in read() on a pipe; a thread's
 *                             wake_reader() writes each byte after
 *                             sleeping in nanosleep()
 *
 * Then it says "ready PID" and waits for a signal that ends it, so that
 * its stacks are named while it lives.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static int rounds;

__attribute__((noinline)) static void site_a(void)
{
	getppid();
}

__attribute__((noinline)) static void site_b(void)
{
	getppid();
}

__attribute__((noinline)) static void wake_reader(void)
{
	if (write(fds[1], "x", 1) != 1)
		exit(3);
}

/*
 * Until the reader (the main thread) sleeps, which it does only in
 * read(): so each read is one wait, however late a loaded host runs it.
 * Polled with sched_yield(), which is no sleep of the writer's.
 */
static void until_reader_sleeps(void)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)getpid());
	for (;;) {
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (n > 0) {
			buf[n] = 0;
			p = strrchr(buf, ')');
			if (p && p[1] == ' ' && p[2] == 'S')
				return;
		}
		sched_yield();
	}
}

static void *writer(void *arg)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int i;

	(void)arg;
	for (i = 0; i < rounds; i++) {
		nanosleep(&ts, NULL);
		until_reader_sleeps();
		wake_reader();
	}
	return NULL;
}

__attribute__((noinline)) static void wait_inner(void)
{
	char c;

	if (read(fds[0], &c, 1) != 1)
		exit(4);
}

__attribute__((noinline)) static void wait_outer(void)
{
	wait_inner();
}

int main(int argc, char **argv)
{
	pthread_t t;
	int i;

	if (argc == 4 && !strcmp(argv[1], "calls")) {
		for (i = atoi(argv[2]); i > 0; i--)
			site_a();
		for (i = atoi(argv[3]); i > 0; i--)
			site_b();
	} else if (argc == 3 && !strcmp(argv[1], "pipe")) {
		rounds = atoi(argv[2]);
		if (pipe(fds) || pthread_create(&t, NULL, writer, NULL))
			return 2;
		for (i = 0; i < rounds; i++)
			wait_outer();
		pthread_join(t, NULL);
	} else {
		fprintf(stderr, "usage: ustack_prog calls A B | pipe N\n");
		return 64;
	}
	printf("ready %d\n", getpid());
	fflush(stdout);
	pause();
	return 0;
}

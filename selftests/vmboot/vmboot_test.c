// SPDX-License-Identifier: GPL-2.0
/*
 * Sanity of the test guest itself: the kernel that booted is the patched
 * kernel whose headers built these tests (7.3, or the 6.12 backport) and
 * the unprivileged user the other tests drop to
 * exists.  If these fail, no other result of the run means anything.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <linux/prctl.h>
#include <linux/version.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"

TEST(kernel_is_the_patched_base)
{
	char base[32];
	struct utsname u;
	const char *local;

	ASSERT_EQ(0, uname(&u));
	TH_LOG("kernel %s %s", u.release, u.version);
	/* The base the harness built: the headers the tests were built with. */
	snprintf(base, sizeof(base), "%d.%d.", LINUX_VERSION_MAJOR,
		 LINUX_VERSION_PATCHLEVEL);
	ASSERT_EQ(0, strncmp(u.release, base, strlen(base)))
		TH_LOG("booted %s, tests built for %s", u.release, base);
	/*
	 * CONFIG_LOCALVERSION of config/kernel.config, "-nosuid", alone or
	 * followed by another suffix (make debian-config-check: -nosuid-debian).
	 */
	local = strstr(u.release, "-nosuid");
	ASSERT_NE(NULL, local);
	local += strlen("-nosuid");
	ASSERT_TRUE(*local == '\0' || *local == '-');
	/* ... and the series is in it: an unpatched kernel says EINVAL. */
	ASSERT_EQ(0, prctl(PR_GET_NOSUID, 0, 0, 0, 0));
}

TEST(unprivileged_user_exists)
{
	char line[256];
	int found = 0;
	FILE *f = fopen("/etc/passwd", "r");

	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "user:x:1000:1000:", 17))
			found = 1;
	fclose(f);
	ASSERT_EQ(1, found);
}

TEST(drop_to_uid_1000)
{
	pid_t pid = fork();
	int status;

	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(1000, 1000, 1000) ||
		    setresuid(1000, 1000, 1000))
			_exit(2);
		_exit(getuid() == 1000 && geteuid() == 1000 &&
		      access("/root", R_OK) != 0 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/*
 * The race tests (network/race_test, the pthread_join tests of nosuid and
 * network) need two tasks running at the same time: on one CPU they would
 * only ever see one interleaving and pass without testing anything.  They
 * skip themselves on one CPU; this makes such a guest fail loudly instead.
 */
TEST(two_cpus_online)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	TH_LOG("%ld CPUs online", n);
	ASSERT_LE(2, n)
	{
		TH_LOG("the race tests need two CPUs (QEMU -smp 2, CONFIG_SMP=y)");
	}
}

/* The manual pages are in the image, readable by the user. */
TEST(manual_pages_installed)
{
	static const char *const pages[] = {
		"/usr/share/man/man1/nosuid.1",
		"/usr/share/man/man2const/PR_SET_NOSUID.2const",
		"/usr/share/man/man2const/PR_GET_NOSUID.2const",
		"/usr/share/man/man2const/PR_SET_NETWORK.2const",
		"/usr/share/man/man2const/PR_GET_NETWORK.2const",
	};
	char line[256];

	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		FILE *f = fopen(pages[i], "r");
		int th = 0;

		ASSERT_NE(NULL, f) TH_LOG("%s", pages[i]);
		while (fgets(line, sizeof(line), f))
			th |= !strncmp(line, ".TH ", 4);
		fclose(f);
		EXPECT_TRUE(th) TH_LOG("%s has no .TH line", pages[i]);
		EXPECT_EQ(0, access(pages[i], R_OK));
	}
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * request_key(2) behind prctl(PR_SET_NETWORK, PR_NETWORK_OFF).
 *
 * A key the kernel does not have is constructed by the upcall
 * /sbin/request-key, run as root outside the caller's restrictions.  For
 * the "dns_resolver" type that program resolves the description in the
 * DNS: network traffic on behalf of a task that may not send any.  So a
 * gated task gets EPERM for that type, and the upcall does not run.  Other
 * key types are not the gate's business: their request is not refused.
 *
 * The fixture replaces /sbin/request-key by a script that only records its
 * arguments ("create <key> <uid> <gid> <keyrings>...") in a log file of this
 * test process and fails, so the requested key ends up negative (ENOKEY).
 * The request waits for the upcall to exit, so its line is there when the
 * call returns; the test still allows a few seconds.  Each request uses a
 * description of its own: a negative key would answer a second request for
 * the same one without an upcall.
 */

#define _GNU_SOURCE
#include <linux/keyctl.h>
#include <sys/syscall.h>

#include "common.h"

#ifndef KEY_SPEC_PROCESS_KEYRING
#define KEY_SPEC_PROCESS_KEYRING -2
#endif

#define REQUEST_KEY "/sbin/request-key"

static long sys_request_key(const char *type, const char *description,
			    const char *callout, int dest)
{
	return syscall(__NR_request_key, type, description, callout, dest);
}

static long sys_add_key(const char *type, const char *description,
			const void *payload, size_t plen, int ring)
{
	return syscall(__NR_add_key, type, description, payload, plen, ring);
}

FIXTURE(request_key)
{
	/* Where the fake upcall writes; the original upcall, if any. */
	char log[64];
	char backup[64];
	bool installed, had_backup;
	int serial;
};

/*
 * Is there a "dns_resolver" key type?  add_key() looks the type up before
 * it parses the payload: ENODEV without the type, EINVAL for the empty
 * payload with it (no key is made); ENOSYS without CONFIG_KEYS.  In a
 * child, so that the test process keeps no keyring of root's.
 */
static int probe_dns_resolver(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(sys_add_key("dns_resolver", "probe", NULL, 0,
				  KEY_SPEC_PROCESS_KEYRING) ? errno : 0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Put the recording script in place of /sbin/request-key.  The original
 * stays reachable through a hard link, and the script comes in with one
 * rename(), so /sbin/request-key is never missing; on failure everything
 * is undone here (the teardown only runs after a complete setup).
 * Returns 0 or an errno.
 */
static int install_upcall(FIXTURE_DATA(request_key) *self)
{
	char tmp[64];
	struct stat st;
	FILE *f;
	int err;

	snprintf(tmp, sizeof(tmp), "%s.keys_test.%d.new", REQUEST_KEY,
		 getpid());
	f = fopen(tmp, "we");
	if (!f)
		return errno;
	fprintf(f,
		"#!/bin/sh\n"
		"# Installed by keys_test: record the upcall, make no key.\n"
		"echo \"$@\" >> %s\n"
		"exit 1\n",
		self->log);
	if (fchmod(fileno(f), 0755) || fclose(f)) {
		err = errno;
		unlink(tmp);
		return err;
	}
	if (lstat(REQUEST_KEY, &st) == 0) {
		snprintf(self->backup, sizeof(self->backup),
			 "%s.keys_test.%d.orig", REQUEST_KEY, getpid());
		if (link(REQUEST_KEY, self->backup)) {
			err = errno;
			unlink(tmp);
			return err;
		}
		self->had_backup = true;
	}
	if (rename(tmp, REQUEST_KEY)) {
		err = errno;
		unlink(tmp);
		if (self->had_backup)
			unlink(self->backup);
		self->had_backup = false;
		return err;
	}
	self->installed = true;
	return 0;
}

/*
 * Put /sbin/request-key back.  Called by the test process (root) when the
 * unprivileged part is over, and again by the teardown in case the test
 * process did not get there; the second call finds nothing to do.  The
 * harness may run a FIXTURE_TEARDOWN_PARENT() in a process of uid 1000
 * (after an ASSERT in a child that dropped privileges, the longjmp() back
 * into the harness can take the parent's path): then it leaves the work to
 * the test process.
 */
static bool restore_upcall(FIXTURE_DATA(request_key) *self)
{
	if (geteuid() != 0)
		return false;
	if (self->had_backup) {
		if (rename(self->backup, REQUEST_KEY))
			return false;
		self->had_backup = false;
		self->installed = false;
	} else if (self->installed) {
		if (unlink(REQUEST_KEY) && errno != ENOENT)
			return false;
		self->installed = false;
	}
	unlink(self->log);
	return true;
}

FIXTURE_SETUP(request_key)
{
	int err = probe_dns_resolver();

	if (err == ENOSYS)
		SKIP(return, "kernel without keys (CONFIG_KEYS)");
	if (err == ENODEV)
		SKIP(return,
		     "kernel without the dns_resolver key type (CONFIG_DNS_RESOLVER)");
	ASSERT_EQ(EINVAL, err)
	{
		TH_LOG("add_key(\"dns_resolver\") probe: %s", strerror(err));
	}

	snprintf(self->log, sizeof(self->log), "/tmp/request-key.%d.log",
		 getpid());
	unlink(self->log);
	/* Last: after this, nothing in the setup can fail. */
	err = install_upcall(self);
	ASSERT_EQ(0, err)
	{
		TH_LOG("installing %s: %s", REQUEST_KEY, strerror(err));
	}
}

FIXTURE_TEARDOWN_PARENT(request_key)
{
	restore_upcall(self);
}

/* The number of lines the upcall wrote so far (0 if it never ran). */
static int upcalls(FIXTURE_DATA(request_key) *self)
{
	char line[256];
	int n = 0;
	FILE *f = fopen(self->log, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

/* Wait up to @ms for the log to reach @want lines; returns the count. */
static int wait_upcalls(FIXTURE_DATA(request_key) *self, int want, int ms)
{
	int n;

	while ((n = upcalls(self)) < want && ms > 0) {
		usleep(50 * 1000);
		ms -= 50;
	}
	return n;
}

/* The last line: the upcall ran to create a key for uid/gid 1000. */
static bool last_upcall_by_user(FIXTURE_DATA(request_key) *self)
{
	char line[256] = {}, want[32];
	FILE *f = fopen(self->log, "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		;
	fclose(f);
	snprintf(want, sizeof(want), " %d %d ", USER_ID, USER_ID);
	return !strncmp(line, "create ", 7) && strstr(line, want);
}

/*
 * request_key() of a key nobody has, with callout information (without
 * any, the kernel never calls out).  Returns 0 or the errno.
 */
static int request(FIXTURE_DATA(request_key) *self, const char *type)
{
	char desc[64];

	snprintf(desc, sizeof(desc), "keys-test-%d-%d.example", getpid(),
		 self->serial++);
	if (sys_request_key(type, desc, "", KEY_SPEC_PROCESS_KEYRING) >= 0)
		return 0;
	return errno;
}

/*
 * Run @fn as uid 1000, nosuid, in a child, while the test process stays
 * root to put /sbin/request-key back whatever happens in the child.
 */
static void as_user(struct __test_metadata *const _metadata,
		    FIXTURE_DATA(request_key) *self,
		    void (*fn)(struct __test_metadata *const _metadata,
			       FIXTURE_DATA(request_key) *self))
{
	pid_t pid = fork();
	int status = -1;

	if (pid == 0) {
		become_user(_metadata);
		fn(_metadata, self);
		_exit(0);
	}
	if (pid > 0)
		status = wait_child(pid);
	/*
	 * No handler blocks ({ TH_LOG() }) from here: after an ASSERT in the
	 * child, the shared _metadata->trigger is still set and would run
	 * them for a check that passed.
	 */
	EXPECT_TRUE(restore_upcall(self));
	/* An ASSERT in the child has already said what went wrong. */
	if (!_metadata->exit_code)
		EXPECT_EQ(0, status);
}

static void dns_resolver_refused(struct __test_metadata *const _metadata,
				 FIXTURE_DATA(request_key) *self)
{
	int err;

	/* Control: the gate is open, the upcall runs and makes no key. */
	err = request(self, "dns_resolver");
	EXPECT_EQ(ENOKEY, err)
	{
		TH_LOG("control: %s", strerror(err));
	}
	ASSERT_EQ(1, wait_upcalls(self, 1, 5000));
	EXPECT_TRUE(last_upcall_by_user(self));

	CLOSE_GATE();
	EXPECT_EQ(EPERM, request(self, "dns_resolver"));
	/* No upcall: give one that was started anyway time to show. */
	EXPECT_EQ(1, wait_upcalls(self, 2, 1000));
}

TEST_F(request_key, dns_resolver)
{
	as_user(_metadata, self, dns_resolver_refused);
}

/*
 * Only dns_resolver is refused: a "user" key is requested behind the gate
 * as before, upcall included (what the administrator's request-key.conf
 * does with it is not the gate's business).  The same task is still
 * refused dns_resolver, so the gate is in force.
 */
static void user_type_allowed(struct __test_metadata *const _metadata,
			      FIXTURE_DATA(request_key) *self)
{
	int err;

	err = request(self, "user");
	EXPECT_EQ(ENOKEY, err)
	{
		TH_LOG("control: %s", strerror(err));
	}
	ASSERT_EQ(1, wait_upcalls(self, 1, 5000));

	CLOSE_GATE();
	err = request(self, "user");
	EXPECT_EQ(ENOKEY, err)
	{
		TH_LOG("behind the gate: %s", strerror(err));
	}
	EXPECT_EQ(2, wait_upcalls(self, 2, 5000));
	EXPECT_TRUE(last_upcall_by_user(self));
	EXPECT_EQ(EPERM, request(self, "dns_resolver"));
	EXPECT_EQ(2, wait_upcalls(self, 3, 1000));
}

TEST_F(request_key, user_type_not_refused)
{
	as_user(_metadata, self, user_type_allowed);
}

TEST_HARNESS_MAIN

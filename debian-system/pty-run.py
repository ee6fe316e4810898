#!/usr/bin/python3
"""pty-run.py ANSWER... -- COMMAND [ARG...]: run COMMAND on a pseudo-terminal
of its own, type the ANSWERs, one at each password prompt, print what it
wrote and exit with its status (128+N for signal N): su(1) and passwd(1)
read passwords from the terminal."""
import os, pty, select, sys, time

sep = sys.argv.index("--")
answers, argv = sys.argv[1:sep], sys.argv[sep + 1:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
out, sent, deadline = b"", 0, time.time() + 30
while time.time() < deadline:
    if fd in select.select([fd], [], [], 1)[0]:
        try:
            data = os.read(fd, 4096)
        except OSError:  # EIO: the other side closed
            break
        if not data:
            break
        out += data
        if sent < len(answers) and out.count(b"assword:") > sent:
            os.write(fd, answers[sent].encode() + b"\n")
            sent += 1
else:
    os.kill(pid, 9)
status = os.waitpid(pid, 0)[1]
sys.stdout.write(out.decode(errors="replace").replace("\r", ""))
code = os.waitstatus_to_exitcode(status)
sys.exit(128 - code if code < 0 else code)

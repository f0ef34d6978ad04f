/* The names of error numbers, for messages and result lines. */
#include <errno.h>

const char *errname(int e)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" },
		{ EINTR, "EINTR" }, { EIO, "EIO" }, { E2BIG, "E2BIG" }, { ENOEXEC, "ENOEXEC" }, { EBADF, "EBADF" },
		{ ECHILD, "ECHILD" }, { EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" },
		{ EFAULT, "EFAULT" }, { EBUSY, "EBUSY" }, { EEXIST, "EEXIST" },
		{ EINVAL, "EINVAL" }, { ERANGE, "ERANGE" }, { ENOSYS, "ENOSYS" },
		{ ETIMEDOUT, "ETIMEDOUT" }, { EIDRM, "EIDRM" }, { EACCES, "EACCES" },
		{ EOWNERDEAD, "EOWNERDEAD" }, { ENOTRECOVERABLE, "ENOTRECOVERABLE" },
	};
	if (e < 0)
		e = -e;
	for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].e == e)
			return names[i].name;
	return "E?";
}

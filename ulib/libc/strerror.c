/* strerror: glibc's messages for the error numbers Anima has (<errno.h>). */
#include <string.h>
#include <errno.h>
#include <stdio.h>

static const char *const msgs[] = {
	[0] = "Success",
	[EPERM] = "Operation not permitted",
	[ENOENT] = "No such file or directory",
	[ESRCH] = "No such process",
	[EINTR] = "Interrupted system call",
	[EIO] = "Input/output error",
	[E2BIG] = "Argument list too long",
	[ENOEXEC] = "Exec format error",
	[EBADF] = "Bad file descriptor",
	[ECHILD] = "No child processes",
	[EAGAIN] = "Resource temporarily unavailable",
	[ENOMEM] = "Cannot allocate memory",
	[EACCES] = "Permission denied",
	[EFAULT] = "Bad address",
	[EBUSY] = "Device or resource busy",
	[EEXIST] = "File exists",
	[ENOTDIR] = "Not a directory",
	[EINVAL] = "Invalid argument",
	[ENFILE] = "Too many open files in system",
	[EMFILE] = "Too many open files",
	[ENOTTY] = "Inappropriate ioctl for device",
	[ENOSPC] = "No space left on device",
	[ESPIPE] = "Illegal seek",
	[EDOM] = "Numerical argument out of domain",
	[ERANGE] = "Numerical result out of range",
	[EDEADLK] = "Resource deadlock avoided",
	[ENAMETOOLONG] = "File name too long",
	[ENOLCK] = "No locks available",
	[ENOSYS] = "Function not implemented",
	[EOVERFLOW] = "Value too large for defined data type",
	[ENOTSUP] = "Operation not supported",
	[ETIMEDOUT] = "Connection timed out",
	[ECANCELED] = "Operation canceled",
	[EOWNERDEAD] = "Owner died",
	[ENOTRECOVERABLE] = "State not recoverable",
	[ENXIO] = "No such device or address",
	[EXDEV] = "Invalid cross-device link",
	[ENODEV] = "No such device",
	[EISDIR] = "Is a directory",
	[EFBIG] = "File too large",
	[EROFS] = "Read-only file system",
	[EMLINK] = "Too many links",
	[EPIPE] = "Broken pipe",
	[ENOTEMPTY] = "Directory not empty",
	[ELOOP] = "Too many levels of symbolic links",
	[EILSEQ] = "Invalid or incomplete multibyte or wide character",
	[ENOBUFS] = "No buffer space available",
	[EALREADY] = "Operation already in progress",
	[EINPROGRESS] = "Operation now in progress",
	[EMSGSIZE] = "Message too long",
	[ENOMSG] = "No message of desired type",
	[ENOSTR] = "Device not a stream",
	[ENODATA] = "No data available",
	[ETIME] = "Timer expired",
	[ENOSR] = "Out of streams resources",
	[ENOLINK] = "Link has been severed",
	[EPROTO] = "Protocol error",
	[EMULTIHOP] = "Multihop attempted",
	[EBADMSG] = "Bad message",
	[ETXTBSY] = "Text file busy",
	[ENOTSOCK] = "Socket operation on non-socket",
	[EDESTADDRREQ] = "Destination address required",
	[EPROTOTYPE] = "Protocol wrong type for socket",
	[ENOPROTOOPT] = "Protocol not available",
	[EPROTONOSUPPORT] = "Protocol not supported",
	[EAFNOSUPPORT] = "Address family not supported by protocol",
	[EADDRINUSE] = "Address already in use",
	[EADDRNOTAVAIL] = "Cannot assign requested address",
	[ENETDOWN] = "Network is down",
	[ENETUNREACH] = "Network is unreachable",
	[ENETRESET] = "Network dropped connection on reset",
	[ECONNABORTED] = "Software caused connection abort",
	[ECONNRESET] = "Connection reset by peer",
	[ECONNREFUSED] = "Connection refused",
	[EISCONN] = "Transport endpoint is already connected",
	[ENOTCONN] = "Transport endpoint is not connected",
	[EHOSTUNREACH] = "No route to host",
	[ESTALE] = "Stale file handle",
	[EDQUOT] = "Disk quota exceeded",
};

int strerror_r(int e, char *buf, size_t n)
{
	const char *m = e >= 0 && e < (int)(sizeof msgs / sizeof msgs[0]) ? msgs[e] : 0;
	int len = m ? snprintf(buf, n, "%s", m) : snprintf(buf, n, "Unknown error %d", e);
	return (size_t)len < n ? 0 : ERANGE;
}

/* GNU's strerror_r (<string.h> under _GNU_SOURCE names this one). */
char *__gnu_strerror_r(int e, char *buf, size_t n)
{
	if (e >= 0 && e < (int)(sizeof msgs / sizeof msgs[0]) && msgs[e])
		return (char *)msgs[e];
	if (n)
		snprintf(buf, n, "Unknown error %d", e);
	return buf;
}

char *strerror(int e)
{
	static char unknown[32];   /* only for numbers without a message */
	if (e >= 0 && e < (int)(sizeof msgs / sizeof msgs[0]) && msgs[e])
		return (char *)msgs[e];
	strerror_r(e, unknown, sizeof unknown);
	return unknown;
}

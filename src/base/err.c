/* err.c: the error report of every module (see err.h). */
#include "base/err.h"

#include <stdio.h>
#include <string.h>

int tdp_err_vset(struct tdp_err *err, int code, const char *fmt, va_list ap)
{
	if (!err || err->code)
		return code;
	err->code = code;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	err->hint[0] = '\0';
	return code;
}

int tdp_err_set(struct tdp_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tdp_err_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}

int tdp_err_hint(struct tdp_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return 0;
	va_start(ap, fmt);
	vsnprintf(err->hint, sizeof(err->hint), fmt, ap);
	va_end(ap);
	return err->code;
}

void tdp_err_prefix(struct tdp_err *err, const char *fmt, ...)
{
	char old[TDP_ERR_MSG_MAX];
	size_t n;
	va_list ap;
	int len;

	if (!err || !err->code)
		return;
	memcpy(old, err->msg, sizeof(old));
	va_start(ap, fmt);
	len = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	if (len < 0)
		len = 0;
	n = (size_t)len < sizeof(err->msg) ? (size_t)len : sizeof(err->msg) - 1;
	/* append ": <old message>", truncated to fit */
	for (const char *p = ": "; *p && n + 1 < sizeof(err->msg); p++)
		err->msg[n++] = *p;
	for (const char *p = old; *p && n + 1 < sizeof(err->msg); p++)
		err->msg[n++] = *p;
	err->msg[n] = '\0';
}

void tdp_err_clear(struct tdp_err *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
	err->hint[0] = '\0';
}

int tdp_err_oom(struct tdp_err *err)
{
	return tdp_err_set(err, TDP_ENOMEM, "out of memory");
}

const char *tdp_strerror(int code)
{
	switch (code) {
	case TDP_OK: return "success";
	case TDP_EINVAL: return "invalid argument";
	case TDP_ENOMEM: return "out of memory";
	case TDP_EIO: return "input/output error";
	case TDP_EFORMAT: return "malformed input";
	case TDP_ELIMIT: return "input exceeds a size limit";
	case TDP_EUSAGE: return "usage error";
	case TDP_ENOENT: return "not found";
	case TDP_ENOTSUP: return "not supported on this machine";
	case TDP_EPERM: return "permission denied";
	case TDP_ENOEXEC: return "cannot execute";
	case TDP_ENOCMD: return "command not found";
	case TDP_EANALYSIS: return "analysis failed";
	case TDP_ECHILD: return "a helper process failed";
	case TDP_EBUSY: return "counter cannot be scheduled";
	}
	return "unknown error";
}

/* SPDX-License-Identifier: MIT */
/* perfkit: umbrella header for the public API. */
#ifndef PERFKIT_PERFKIT_H
#define PERFKIT_PERFKIT_H
#include <perfkit/common.h>
#include <perfkit/event.h>
#include <perfkit/map.h>
#include <perfkit/counter.h>
#include <perfkit/features.h>
#include <perfkit/selfmon.h>
#include <perfkit/perfdata.h>
#include <perfkit/ring.h>
#include <perfkit/synth.h>
#include <perfkit/symbol.h>
#include <perfkit/bidcache.h>
#include <perfkit/session.h>
#include <perfkit/annotate.h>
#include <perfkit/tracefmt.h>
#include <perfkit/pt.h>
#include <perfkit/tracedat.h>
#include <perfkit/tracefs.h>
#include <perfkit/ftrace.h>
#include <perfkit/export.h>
#endif

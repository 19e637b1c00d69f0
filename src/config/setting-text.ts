// The text of a flag or environment variable turned into a setting's value. Bad text is an operator
// error: a TypeError naming where the text came from (`source`).
import { availableParallelism } from 'node:os';
import { LOG_LEVELS, type LogLevel } from '../logging/logger.js';
import { isOrigin } from './origin.js';
import type { Setting } from './setting-table.js';
import {
  isBasePath,
  isDatabaseUrl,
  isHttpUrl,
  isRedisUrl,
  MAX_WEBHOOK_MS,
  MAX_WEBHOOK_RETRIES,
} from './setting-values.js';
import type { Settings } from './settings.js';

/** 2030-12-05, or an RFC 3339 date-time such as 2030-12-05T00:00:00Z or 2030-12-05T01:00:00+01:00. */
const DATE_TEXT = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2}))?$/i;

/** Is the date at the start of `text` a day of the calendar (not 2030-02-30, which Date.parse moves on)? */
function isCalendarDay(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day && month >= 1 && month <= 12;
}

/** Turns the text of a flag or environment variable into the setting's value; throws naming `source`. */
export function parseSettingText(setting: Setting, text: string, source: string): Settings[keyof Settings] {
  switch (setting.kind) {
    case 'port': {
      const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : Number.NaN;
      if (!(port >= 0 && port <= 65535))
        throw new TypeError(`${source} must be a port number from 0 to 65535, not "${text}"`);
      return port;
    }
    case 'integer':
      return parseIntegerText(text, source, setting.max);
    case 'seconds': {
      const max = setting.max ?? Number.MAX_SAFE_INTEGER;
      const value = /^[0-9]{1,15}$/.test(text) ? Number(text) : Number.NaN;
      if (!(value <= max))
        throw new TypeError(`${source} must be a whole number of seconds from 0 to ${max}, not "${text}"`);
      return value;
    }
    case 'msList': {
      const waits = text.split(',').map((item) => item.trim());
      if (waits.length > MAX_WEBHOOK_RETRIES || waits.some((item) => !/^[0-9]+$/.test(item)))
        throw new TypeError(
          `${source} must be at most ${MAX_WEBHOOK_RETRIES} waits in ms, comma-separated, such as 5000,300000, not "${text}"`,
        );
      return waits.map((item) => parseIntegerText(item, source, MAX_WEBHOOK_MS));
    }
    case 'workers':
      if (text === 'auto') return availableParallelism();
      if (!/^[0-9]+$/.test(text)) throw new TypeError(`${source} must be a whole number or auto, not "${text}"`);
      return parseIntegerText(text, source, setting.max);
    case 'date': {
      // A calendar date or an RFC 3339 time, nothing Date.parse would also guess at ("2026", "-1").
      const value = DATE_TEXT.test(text) && isCalendarDay(text) ? Date.parse(text) : Number.NaN;
      if (Number.isNaN(value))
        throw new TypeError(`${source} must be a date such as 2030-12-05T00:00:00Z, not "${text}"`);
      return value;
    }
    case 'durability':
      if (text !== 'always' && text !== 'interval' && text !== 'never')
        throw new TypeError(`${source} must be always, interval or never, not "${text}"`);
      return text;
    case 'boolean':
      if (text === 'true' || text === '1' || text === 'on' || text === '') return true;
      if (text === 'false' || text === '0' || text === 'off') return false;
      throw new TypeError(`${source} must be true or false (or on or off), not "${text}"`);
    case 'logLevel':
      if (!(LOG_LEVELS as readonly string[]).includes(text))
        throw new TypeError(`${source} must be one of ${LOG_LEVELS.join(', ')}, not "${text}"`);
      return text as LogLevel;
    case 'basePath':
      if (!isBasePath(text))
        throw new TypeError(
          `${source} must look like /v1 (slash-separated segments, no trailing slash), not "${text}"`,
        );
      return text;
    case 'url':
      if (!isHttpUrl(text))
        throw new TypeError(
          `${source} must be an http or https address such as https://api.example.com/v1, not "${text}"`,
        );
      return text;
    case 'origins': {
      const origins = text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0);
      const bad = origins.find((origin) => !isOrigin(origin));
      if (bad !== undefined)
        throw new TypeError(
          `${source} must list origins such as https://app.example.com (scheme and host, no path), not "${bad}"`,
        );
      return origins;
    }
    case 'redisUrl':
      if (!isRedisUrl(text))
        throw new TypeError(`${source} must be a redis:// or rediss:// address such as redis://localhost:6379`);
      return text;
    case 'limiterUnavailable':
      if (text !== 'closed' && text !== 'open') throw new TypeError(`${source} must be closed or open, not "${text}"`);
      return text;
    case 'databaseUrl':
      if (!isDatabaseUrl(text))
        throw new TypeError(
          `${source} must be a postgres:// or postgresql:// address such as postgres://user@localhost:5432/animals`,
        );
      return text;
    case 'path':
    case 'string':
      if (text.length === 0) throw new TypeError(`${source} must not be empty`);
      return text;
  }
}

/** Turns the text of an integer setting into a whole number from 1 to `max`; throws naming `source`. */
export function parseIntegerText(text: string, source: string, max?: number): number {
  const value = /^[1-9][0-9]{0,14}$/.test(text) ? Number(text) : Number.NaN;
  if (max !== undefined && !(value <= max))
    throw new TypeError(`${source} must be a whole number from 1 to ${max}, not "${text}"`);
  if (Number.isNaN(value)) throw new TypeError(`${source} must be a positive whole number, not "${text}"`);
  return value;
}

import { en, type Catalogue } from './en.ts';
import { es } from './es.ts';
import type { Plural } from './plural.ts';

// The household's language: which catalogue its words come from, and the locale Intl formats its
// dates, money and counts with. Typed catalogues rather than an ICU MessageFormat library: the
// messages are few, their only variables are values formatted here, and a type that forces every
// catalogue to have the English one's keys catches a missing translation when it is written, with
// nothing to parse at run time (the pages run on Deno at the edge too).

/** The languages with a catalogue; adding one is a file of the Catalogue type and a line here. */
export const catalogues = { en, es } satisfies Record<string, Catalogue>;

export type Language = keyof typeof catalogues;

export const languages = Object.keys(catalogues) as Language[];

const isLanguage = (value: string): value is Language => Object.hasOwn(catalogues, value);

/** The words and the formatting of one language. */
export interface Words {
  language: Language;
  /** The BCP 47 tag Intl formats with and the page's lang attribute names (es-PR, en-US). */
  locale: string;
  m: Catalogue;
  date: (isoDate: string) => string;
  money: (cents: number, currency: string) => string;
  count: (n: number, forms: Plural) => string;
  list: (items: string[]) => string;
}

/**
 * The catalogue a tag reads: its base language when there is a catalogue for it (es-PR reads es),
 * else none. The locale keeps the tag's region; a language alone formats as in the US, where the
 * service houses people (es formats as es-US: $1,500.00, not 1500,00 US$).
 */
function fromTag(tag: string): { language: Language; locale: string } | undefined {
  let canonical: string;
  try {
    canonical = Intl.getCanonicalLocales(tag.trim())[0];
  } catch {
    return undefined;
  }
  const locale = new Intl.Locale(canonical);
  if (!isLanguage(locale.language)) return undefined;
  return { language: locale.language, locale: locale.region ? `${locale.language}-${locale.region}` : `${locale.language}-US` };
}

/** The tags of an Accept-Language header, most preferred first (q=0 excluded). */
function acceptedTags(header: string): string[] {
  return header.split(',')
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag.trim(), q: q ? Number(q.slice(2)) : 1, index };
    })
    .filter((entry) => entry.tag !== '' && entry.tag !== '*' && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((entry) => entry.tag);
}

/**
 * The household's language, first that has a catalogue of: the one it chose on the page (`?lang=`,
 * the switch), the one its request states (household_language), its browser's (Accept-Language);
 * else English.
 */
export function chooseLanguage(from: { chosen?: string | null; stated?: string | null; acceptLanguage?: string | null }): Words {
  const candidates = [from.chosen, from.stated, ...acceptedTags(from.acceptLanguage ?? '')];
  const found = candidates.map((tag) => (tag ? fromTag(tag) : undefined)).find((match) => match !== undefined);
  return wordsFor(found ?? { language: 'en', locale: 'en-US' });
}

function wordsFor({ language, locale }: { language: Language; locale: string }): Words {
  const dates = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' });
  const plurals = new Intl.PluralRules(locale);
  const lists = new Intl.ListFormat(locale, { type: 'conjunction' });
  return {
    language,
    locale,
    m: catalogues[language],
    date: (isoDate) => dates.format(new Date(`${isoDate.slice(0, 10)}T00:00:00Z`)),
    money: (cents, currency) => new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100),
    count: (n, forms) => (forms[plurals.select(n)] ?? forms.other).replace('#', new Intl.NumberFormat(locale).format(n)),
    list: (items) => lists.format(items),
  };
}

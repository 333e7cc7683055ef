/** A count in words per plural category, `#` standing for the number: Intl.PluralRules picks the form. */
export type Plural = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };

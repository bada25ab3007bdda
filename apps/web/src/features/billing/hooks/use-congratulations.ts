import { useCallback, useState } from 'react';
import { useAuth } from '../../auth/index.ts';
import { clearTariffMarker, congratulationsPlan, readTariffMarker } from './tariff-marker.ts';

/** The plan to congratulate on (or null) and the "Got it" action that clears the marker. */
export function useCongratulations() {
  const { user } = useAuth();
  const [marker, setMarker] = useState(readTariffMarker);
  const plan = congratulationsPlan(marker, user);
  const dismiss = useCallback(() => {
    clearTariffMarker();
    setMarker(null);
  }, []);
  const recheck = useCallback(() => setMarker(readTariffMarker()), []);
  return { plan, dismiss, recheck };
}
